import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "trellis-lgjson-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

describe("loadConfig reads a LangGraph project's langgraph.json", () => {
  it("maps path:export graphs to { module, graph } and reads env from a .env file", async () => {
    write(".env", 'export API_URL="http://x"\nMODEL=small # a comment\n# skipped\n');
    const config = await loadConfig(
      write("langgraph.json", {
        graphs: { agent: "./src/graph.ts:graph", other: "./src/b.ts" },
        env: ".env",
        dependencies: ["."],
      }),
    );
    expect(config.graphs).toEqual({
      agent: { module: "./src/graph.ts", graph: "graph" },
      other: { module: "./src/b.ts", graph: "graph" },
    });
    expect(config.env).toEqual({ API_URL: "http://x", MODEL: "small" });
    expect(config.baseDir).toBe(dir);
  });

  it("takes env as an object", async () => {
    const config = await loadConfig(write("langgraph.json", { graphs: { a: "./g.ts:g" }, env: { N: 1 } }));
    expect(config.env).toEqual({ N: "1" });
  });

  it("refuses a missing env file and bad dependencies with INVALID_CONFIG saying what to fix", async () => {
    await expect(
      loadConfig(write("langgraph.json", { graphs: { a: "./g.ts:g" }, env: "missing.env" })),
    ).rejects.toMatchObject({
      code: "INVALID_CONFIG",
      message: expect.stringContaining("cannot read its env file"),
    });
    await expect(
      loadConfig(write("langgraph.json", { graphs: { a: "./g.ts:g" }, dependencies: "." })),
    ).rejects.toMatchObject({
      code: "INVALID_CONFIG",
      message: expect.stringContaining('"dependencies" must be a list'),
    });
    await expect(loadConfig(write("langgraph.json", { graphs: { a: ":g" } }))).rejects.toMatchObject({
      code: "INVALID_CONFIG",
    });
  });
});
