import { mkdir, readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Runs every ```ts block of docs/models.md (blocks marked ```ts skip are left out), so the examples
// readers copy keep working. The blocks are written under test-artifacts/ (git-ignored) so that their
// imports resolve from the repository's node_modules.
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const doc = await readFile(`${repoRoot}docs/models.md`, "utf8");
const blocks = [...doc.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? "");

describe("docs/models.md examples", () => {
  it("has runnable examples", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(8);
  });

  it.each(blocks.map((code, i) => [i + 1, code] as const))("example %i runs", async (n, code) => {
    const dir = `${repoRoot}test-artifacts/doc-examples`;
    await mkdir(dir, { recursive: true });
    const file = `${dir}/models-${n}.ts`;
    await writeFile(file, code);
    await import(/* @vite-ignore */ file);
  });
});
