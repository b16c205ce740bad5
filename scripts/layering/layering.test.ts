/**
 * The layering rule, checked on the workspace as it is and on a small workspace made to break it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { findLayerViolations } from "./layers.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

describe("layering: common <- protocol/checkpoint <- core <- models <- agents <- server <- cli/studio/apps", () => {
  it("no package imports one of its own layer or above (package.json and sources)", () => {
    expect(findLayerViolations(ROOT)).toEqual([]);
  });

  const tmp = mkdtempSync(join(tmpdir(), "trellis-layers-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(tmp, path)), { recursive: true });
    writeFileSync(join(tmp, path), text);
  };

  it("reports an upward import: a dependency, a package import and a relative path into another package", () => {
    write("package.json", JSON.stringify({ workspaces: ["packages/*"] }));
    // checkpoint (layer 1) depends on core (layer 2): upward in package.json and in a relative import
    write(
      "packages/checkpoint/package.json",
      JSON.stringify({ name: "@trellis/checkpoint", dependencies: { "@trellis/core": "0" } }),
    );
    write("packages/checkpoint/src/up.ts", 'export { x } from "../../core/src/ok.js";\n');
    // core (layer 2) imports checkpoint (fine) and the server (upward), in source only
    write(
      "packages/core/package.json",
      JSON.stringify({ name: "@trellis/core", dependencies: { "@trellis/checkpoint": "0" } }),
    );
    write("packages/core/src/ok.ts", 'import { MemorySaver } from "@trellis/checkpoint";\n');
    write("packages/core/src/up.ts", 'import type { RunStore } from "@trellis/server/testing";\n');
    // the server (layer 5) imports core: downward, fine
    write(
      "packages/server/package.json",
      JSON.stringify({ name: "@trellis/server", devDependencies: { "@trellis/core": "0" } }),
    );
    const found = findLayerViolations(tmp).map((v) => `${v.from} -> ${v.to} @ ${v.where}`);
    expect(found).toEqual([
      "@trellis/checkpoint -> @trellis/core @ packages/checkpoint/package.json (dependencies)",
      "@trellis/checkpoint -> @trellis/core @ packages/checkpoint/src/up.ts:1",
      "@trellis/core -> @trellis/server @ packages/core/src/up.ts:1",
    ]);
  });

  it("reports a workspace package that has no layer", () => {
    write("packages/newcomer/package.json", JSON.stringify({ name: "@trellis/newcomer" }));
    expect(findLayerViolations(tmp)).toContainEqual({
      from: "@trellis/newcomer",
      to: "(no layer)",
      where: "scripts/layering/layers.ts",
    });
  });
});
