// Golden-image comparisons through one long-lived `imgscale compare --server`.
//
//   import { createComparer } from "imgscale-golden";
//   const c = createComparer();
//   const r = await c.compare("goldens/home.png", "out/home.png", { threshold: 0.1 });
//   c.close();
//
// The binary is `imgscale` on PATH, or $IMGSCALE, or `binary`. Limits are a rules file's
// keys (tolerance, threshold, max_pixels_differ, min_ssim, max_delta_e, ...), in
// snake_case or camelCase. No dependencies; Node 18 or later.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The platform a golden is recorded for: linux, darwin, win32 (imgscale compare --platform's default). */
export function platformName() {
  return process.platform;
}

/** The platform's golden for the plain golden `plain` through a template like `{dir}/{platform}/{path}`. */
export function goldenPath(plain, template, platform) {
  if (!template) return plain;
  return template.replaceAll("{dir}", path.dirname(plain)).replaceAll("{platform}", platform || platformName())
    .replaceAll("{path}", path.basename(plain));
}

const snake = (k) => k.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase()).replaceAll("-", "_");

/** One comparison's answer: `verdict` (match, differ, error), the server's numbers (`data`), the diff's path. */
export class Result {
  constructor(data, expected, actual, diff) {
    this.data = data;
    this.expected = expected;
    this.actual = actual;
    this.diff = diff && fs.existsSync(diff) ? diff : null;
    this.verdict = data.result ?? "error";
    this.golden = data.golden ?? null;
  }
  get ok() { return this.verdict === "match"; }
  get message() {
    const d = this.data;
    if (this.verdict === "match") return `${this.actual} matches ${this.expected}`;
    if (this.verdict === "error") return `${this.actual}: ${d.error ?? "error"}`;
    const parts = [`${this.actual} differs from ${this.expected}`];
    if (d.differing_pixels !== undefined) parts.push(`${d.differing_pixels} of ${d.compared_pixels} pixels differ`);
    if (d.max_difference !== undefined && d.max_difference !== null) parts.push(`max difference ${d.max_difference}`);
    const failed = (d.decided_by ?? []).filter((x) => x.held === false);
    if (failed.length) parts.push(failed.map((x) => `${x.limit} ${x.value} over ${x.bound}`).join("; "));
    if (this.diff) parts.push(`diff: ${this.diff}`);
    return parts.join(", ");
  }
}

/**
 * One `imgscale compare --server` for many comparisons, answered in the order asked. A
 * server that dies is started again once for each request it died on; a second death
 * rejects that request with an error naming the pair.
 */
export class Comparer {
  constructor({ binary, args = [], goldensTemplate, platform, fallback = false } = {}) {
    this.binary = binary || process.env.IMGSCALE || "imgscale";
    this.args = [...args];
    if (goldensTemplate) this.args.push("--goldens-template", goldensTemplate);
    if (platform) this.args.push("--platform", platform);
    if (fallback) this.args.push("--fallback");
    this.pending = [];
    this.proc = null;
    this.restarts = 0;
    this.started = false;
    this.closed = false;
  }

  start() {
    if (this.started) this.restarts += 1;
    this.started = true;
    const proc = spawn(this.binary, ["compare", "--server", ...this.args], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    proc.stderr.on("data", (d) => { stderr += d; });
    proc.stdin.on("error", () => {});
    createInterface({ input: proc.stdout }).on("line", (line) => {
      const waiting = this.pending.shift();
      if (this.pending.length === 0) this.hold(false);
      if (waiting) waiting.resolve(JSON.parse(line));
    });
    proc.on("error", () => {});
    proc.on("close", () => {
      if (this.proc === proc) this.proc = null;
      const lost = this.pending;
      this.pending = [];
      for (const w of lost) w.died(stderr.trim());
    });
    this.proc = proc;
    this.hold(this.pending.length > 0);
  }

  // An idle server keeps no test process alive; one with answers to come does.
  hold(busy) {
    const p = this.proc;
    if (!p) return;
    for (const h of [p, p.stdin, p.stdout, p.stderr]) {
      if (busy) h.ref?.(); else h.unref?.();
    }
  }

  send(request) {
    return new Promise((resolve, reject) => {
      const attempt = (tries, why) => {
        if (tries > 1) {
          reject(new Error(`imgscale compare --server died twice comparing ${request.actual} with ${request.expected}${why ? ": " + why : ""}`));
          return;
        }
        if (!this.proc) this.start();
        this.pending.push({ resolve, died: (w) => attempt(tries + 1, w || why) });
        this.hold(true);
        this.proc.stdin.write(JSON.stringify(request) + "\n");
      };
      attempt(0, "");
    });
  }

  /** Compares `actual` with the golden `expected`: a promise of a Result. */
  async compare(expected, actual, { diff, ...limits } = {}) {
    if (this.closed) throw new Error("the comparer is closed");
    const request = { expected, actual };
    if (diff) request.diff = diff;
    const options = Object.fromEntries(Object.entries(limits).map(([k, v]) => [snake(k), v]));
    if (Object.keys(options).length) request.options = options;
    return new Result(await this.send(request), expected, actual, diff);
  }

  close() {
    this.closed = true;
    if (this.proc) this.proc.stdin.end();
  }
}

export function createComparer(options) {
  return new Comparer(options);
}

let shared = null;
function sharedComparer() {
  if (!shared) {
    shared = createComparer();
    // Ends with the test process: the server reads EOF.
    process.on("beforeExit", () => shared && shared.close());
  }
  return shared;
}

const scratch = () => fs.mkdtempSync(path.join(os.tmpdir(), "imgscale-golden-"));

function asFile(image, stem) {
  if (typeof image === "string") return image;
  if (image instanceof Uint8Array) {
    const file = path.join(scratch(), stem.replace(/[^A-Za-z0-9._-]/g, "_") + ".png");
    fs.writeFileSync(file, image);
    return file;
  }
  throw new TypeError("a golden comparison takes a path or PNG bytes (a Buffer)");
}

function record(actual, golden) {
  fs.mkdirSync(path.dirname(golden), { recursive: true });
  fs.copyFileSync(actual, golden + ".tmp-imgscale");
  fs.renameSync(golden + ".tmp-imgscale", golden);
}

/**
 * Checks `image` (a path or PNG bytes) against `goldens/<name>.png`. Options: `goldens`
 * (the directory, default `goldens` under the working directory), `update` (default
 * $UPDATE_GOLDENS: missing, failed or all), `goldensTemplate`, `platform`, `fallback`,
 * `comparer`, and any limits. Resolves to { pass, message, result, golden }.
 */
export async function checkGolden(image, name, options = {}) {
  const { goldens = "goldens", update = process.env.UPDATE_GOLDENS, goldensTemplate, platform, fallback,
    comparer = sharedComparer(), ...limits } = options;
  const plain = path.join(goldens, name.replace(/[^A-Za-z0-9._\-/[\]=,+ ]/g, "_") + ".png");
  let golden = goldenPath(plain, goldensTemplate, platform);
  if (!fs.existsSync(golden) && fallback && goldensTemplate && fs.existsSync(plain)) golden = plain;
  const actual = asFile(image, name);
  if (!fs.existsSync(golden)) {
    if (update === "missing" || update === "all") {
      record(actual, golden);
      return { pass: true, message: () => `recorded ${golden}`, golden };
    }
    return { pass: false, message: () => `no golden at ${golden}; record it with UPDATE_GOLDENS=missing`, golden };
  }
  if (update === "all") {
    record(actual, golden);
    return { pass: true, message: () => `recorded ${golden}`, golden };
  }
  const diff = path.join(scratch(), "diff.png");
  const result = await comparer.compare(golden, actual, { diff, ...limits });
  if (!result.ok && update === "failed") {
    record(actual, golden);
    return { pass: true, message: () => `recorded ${golden}`, result, golden };
  }
  return { pass: result.ok, message: () => result.message, result, golden };
}

/**
 * A matcher in the shape Jest's `expect.extend` takes: `await expect(png).toMatchGolden()`
 * names the golden by the test (`this.currentTestName`), or by the name given.
 */
export async function toMatchGolden(received, name, options = {}) {
  const label = name ?? this?.currentTestName;
  if (!label) throw new Error("toMatchGolden needs a name outside Jest");
  const outcome = await checkGolden(received, label, options);
  return { pass: outcome.pass, message: outcome.message };
}

/**
 * node:test: `await matchGolden(t, png)` fails the test `t` (named by `t.name`, or
 * `options.name`) with the comparison's message and the diff's path.
 */
export async function matchGolden(t, image, options = {}) {
  const { name, ...rest } = options;
  const outcome = await checkGolden(image, name ?? t.name, rest);
  if (!outcome.pass) {
    const diff = outcome.result?.diff;
    if (diff && typeof t.diagnostic === "function") t.diagnostic(`imgscale diff: ${diff}`);
    const error = new Error(outcome.message());
    error.diff = diff ?? null;
    throw error;
  }
  return outcome.result ?? null;
}
