// Golden tests of thumbnails with node:test: `node --test`, with UPDATE_GOLDENS=missing
// the first time (it records goldens/...). imgscale-golden is clients/node.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { matchGolden, createComparer } from "imgscale-golden";

const imgscale = process.env.IMGSCALE ?? "imgscale";
const picture = process.env.PICTURE ?? "TestImages/scene-640x427.jpg";
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "thumbs-"));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

function thumbnail(size) {
  const out = path.join(scratch, `thumb-${size}.png`);
  execFileSync(imgscale, ["fill", "--size", size, picture, "-o", out]);
  return out;
}

test("square", async (t) => {
  await matchGolden(t, thumbnail("64x64"));
});

test("wide", async (t) => {
  // Limits as a rules file names them, in camelCase or snake_case.
  await matchGolden(t, thumbnail("96x54"), { tolerance: 1, maxPixelsDiffer: "0.5%" });
});

test("the comparer directly", async () => {
  const c = createComparer();
  const result = await c.compare(thumbnail("32x32"), thumbnail("32x32"));
  c.close();
  assert.ok(result.ok, result.message);
});
