// The comparer and the matchers, as a node:test suite uses them.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createComparer, checkGolden, matchGolden, toMatchGolden, goldenPath } from "../index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const imgscale = process.env.IMGSCALE || path.join(root, ".build/release/imgscale");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "imgscale-golden-node-"));
const img = (n) => path.join(work, n);
let comparer;

before(() => {
  for (const [name, src] of [["scene", "scene-640x427.png"], ["strokes", "strokes-130x90.png"]]) {
    execFileSync(imgscale, ["fill", "--size", "64x64", path.join(root, "TestImages", src), "-o", img(name + ".png")]);
  }
  fs.copyFileSync(img("scene.png"), img("scene-copy.png"));
  comparer = createComparer({ binary: imgscale });
});
after(() => { comparer.close(); fs.rmSync(work, { recursive: true, force: true }); });

const opts = (extra = {}) => ({ goldens: path.join(work, "goldens"), comparer, ...extra });

test("a missing golden fails and says how to record it", async () => {
  const r = await checkGolden(img("scene.png"), "home", opts({ update: "" }));
  assert.equal(r.pass, false);
  assert.match(r.message(), /no golden at .*goldens\/home\.png; record it with UPDATE_GOLDENS=missing/);
});

test("an update records it, then it matches", async () => {
  assert.equal((await checkGolden(img("scene.png"), "home", opts({ update: "missing" }))).pass, true);
  assert.ok(fs.existsSync(path.join(work, "goldens/home.png")));
  const r = await checkGolden(img("scene-copy.png"), "home", opts({ update: "" }));
  assert.equal(r.pass, true, r.message());
});

test("a failure names the numbers and the diff; failed updates take the new picture", async (t) => {
  await checkGolden(img("scene.png"), "menu", opts({ update: "missing" }));
  await assert.rejects(matchGolden(t, img("strokes.png"), opts({ name: "menu", update: "" })),
    (e) => /strokes\.png differs from .*menu\.png, \d+ of 4096 pixels differ.*diff: .*diff\.png/.test(e.message) && fs.existsSync(e.diff));
  assert.equal((await checkGolden(img("strokes.png"), "menu", opts({ update: "failed" }))).pass, true);
  assert.equal((await checkGolden(img("strokes.png"), "menu", opts({ update: "" }))).pass, true);
});

test("bytes, limits in camelCase, and the Jest matcher's shape", async () => {
  await checkGolden(img("scene.png"), "bytes", opts({ update: "missing" }));
  const r = await checkGolden(fs.readFileSync(img("scene-copy.png")), "bytes", opts({ update: "", maxPixelsDiffer: "0.1%", tolerance: 1 }));
  assert.equal(r.pass, true, r.message());
  const jest = await toMatchGolden.call({ currentTestName: "bytes" }, img("scene.png"), undefined, opts({ update: "" }));
  assert.equal(jest.pass, true);
  assert.equal(typeof jest.message, "function");
});

test("a server killed mid-suite is started again once; one that dies twice is an error naming the pair", async () => {
  const c = createComparer({ binary: imgscale });
  assert.ok((await c.compare(img("scene.png"), img("scene-copy.png"))).ok);
  const dead = new Promise((resolve) => c.proc.on("close", resolve));
  c.hold(true);           // an idle server holds nothing open; this test waits on its end
  c.proc.kill("SIGKILL");
  await dead;
  assert.ok((await c.compare(img("scene.png"), img("scene-copy.png"))).ok);
  assert.equal(c.restarts, 1);
  c.close();
  const dying = img("dying-imgscale");
  fs.writeFileSync(dying, "#!/bin/sh\necho 'simulated crash' >&2\nexit 134\n", { mode: 0o755 });
  const d = createComparer({ binary: dying });
  await assert.rejects(d.compare(img("scene.png"), img("scene-copy.png")),
    /died twice comparing .*scene-copy\.png with .*scene\.png: simulated crash/);
  assert.equal(d.restarts, 1);
});

test("the platform template, through the server and checkGolden", async () => {
  const t = "{dir}/{platform}/{path}";
  assert.equal(goldenPath("goldens/home.png", t, "darwin"), "goldens/darwin/home.png");
  assert.equal(goldenPath("goldens/home.png", undefined, "darwin"), "goldens/home.png");
  const g = img("tg");
  fs.mkdirSync(path.join(g, "darwin"), { recursive: true });
  fs.copyFileSync(img("scene.png"), path.join(g, "home.png"));
  fs.copyFileSync(img("strokes.png"), path.join(g, "darwin/home.png"));
  for (const [platform, fallback, verdict, golden] of [["darwin", false, "differ", "platform"], ["linux", true, "match", "fallback"], ["linux", false, "missing", "missing"]]) {
    const c = createComparer({ binary: imgscale, goldensTemplate: t, platform, fallback });
    const r = await c.compare(path.join(g, "home.png"), img("scene.png"));
    c.close();
    assert.deepEqual([r.verdict, r.golden], [verdict, golden], JSON.stringify(r.data));
  }
  const o = opts({ goldensTemplate: t, platform: "darwin", update: "missing" });
  assert.equal((await checkGolden(img("scene.png"), "plat", o)).pass, true);
  assert.ok(fs.existsSync(path.join(work, "goldens/darwin/plat.png")));
  assert.equal((await checkGolden(img("scene.png"), "plat", { ...o, update: "" })).pass, true);
  assert.equal((await checkGolden(img("scene.png"), "plat", { ...o, update: "", platform: "linux" })).pass, false);
});

test("1,000 comparisons through one comparer against subprocesses", async () => {
  const a = img("scene.png"), b = img("scene-copy.png");
  await comparer.compare(a, b);
  let t = process.hrtime.bigint();
  for (let i = 0; i < 1000; i++) assert.ok((await comparer.compare(a, b)).ok);
  const server = Number(process.hrtime.bigint() - t) / 1e6 / 1000;
  const runs = 200;
  t = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) assert.equal(spawnSync(imgscale, ["compare", a, b]).status, 0);
  const alone = Number(process.hrtime.bigint() - t) / 1e6 / runs;
  console.log(`imgscale-golden: 1000 comparisons through one comparer at ${server.toFixed(3)} ms each; imgscale compare as a subprocess ${alone.toFixed(3)} ms (${runs} runs): ${(server / alone).toFixed(3)}x`);
  assert.ok(server / alone <= 0.2);
});
