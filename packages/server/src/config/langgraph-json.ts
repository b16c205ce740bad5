import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { TrellisError } from "@trellis/checkpoint";
import type { GraphEntry, TrellisConfig } from "./config.js";

/**
 * True for a LangGraph project file (`langgraph.json`): its `graphs` map ids to `"./path.ts:export"`
 * strings rather than Trellis's `{ module, graph }` objects.
 *
 * @example
 * isLangGraphJson({ graphs: { agent: "./src/graph.ts:graph" } }); // true
 */
export function isLangGraphJson(raw: unknown): boolean {
  const graphs = (raw as { graphs?: unknown } | null)?.graphs;
  if (typeof graphs !== "object" || graphs === null || Array.isArray(graphs)) return false;
  const values = Object.values(graphs);
  return values.length > 0 && values.every((v) => typeof v === "string");
}

function fail(where: string, what: string): never {
  throw new TrellisError("INVALID_CONFIG", `${where}: ${what}`);
}

/** `KEY=value` lines of a dotenv file (`#` comments, optional quotes, `export` prefix). */
function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    let value = match[2] ?? "";
    const quoted = /^(["'])(.*)\1$/.exec(value);
    if (quoted) value = quoted[2] ?? "";
    else value = value.replace(/\s+#.*$/, "");
    out[match[1] as string] = value;
  }
  return out;
}

/**
 * Reads a `langgraph.json` as a Trellis config: each `"./src/graph.ts:graph"` becomes
 * `{ module: "./src/graph.ts", graph: "graph" }`; `env` (an object, or the path of a dotenv file)
 * becomes the config's `env`; `dependencies` are checked to be a list and otherwise left to npm. Other
 * LangGraph keys (`node_version`, `dockerfile_lines`, `http`…) are ignored.
 *
 * @example
 * fromLangGraphJson({ graphs: { agent: "./src/graph.ts:graph" }, env: ".env" }, "/app/langgraph.json", "/app");
 */
export function fromLangGraphJson(raw: unknown, file: string, baseDir: string): TrellisConfig {
  const c = raw as { graphs: Record<string, string>; env?: unknown; dependencies?: unknown };
  const graphs: Record<string, GraphEntry> = {};
  for (const [id, spec] of Object.entries(c.graphs)) {
    const at = spec.lastIndexOf(":");
    const module = at >= 0 ? spec.slice(0, at) : spec;
    const exportName = at >= 0 ? spec.slice(at + 1) : "graph";
    if (module === "" || exportName === "") fail(file, `graphs["${id}"] must look like "./src/graph.ts:graph".`);
    graphs[id] = { module, graph: exportName };
  }
  if (c.dependencies !== undefined && !Array.isArray(c.dependencies)) {
    fail(file, '"dependencies" must be a list of paths or packages, e.g. ["."].');
  }
  let env: Record<string, string> | undefined;
  if (typeof c.env === "string") {
    const path = resolve(baseDir, c.env);
    try {
      env = parseDotenv(readFileSync(path, "utf8"));
    } catch (error) {
      fail(file, `cannot read its env file ${path}: ${(error as Error).message}`);
    }
  } else if (c.env !== undefined) {
    if (typeof c.env !== "object" || c.env === null || Array.isArray(c.env)) {
      fail(file, '"env" must be the path of a .env file or an object of variables.');
    }
    env = Object.fromEntries(Object.entries(c.env as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
  }
  return { graphs, ...(env !== undefined ? { env } : {}) };
}
