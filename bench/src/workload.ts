/**
 * Which implementation of a workload runs: our runtime, LangGraph.js, plain functions (the floor), or
 * the LangGraph.js implementation on `@trellis/langgraph` (the compat layer; its own table).
 */
export type Runtime = "trellis" | "langgraph" | "floor" | "compat";

/** The runtimes in the order the table shows them. */
export const RUNTIMES: readonly Runtime[] = ["trellis", "langgraph", "floor"];

/** The runtimes of the compat table (`npm run bench -- --compat`). */
export const COMPAT_RUNTIMES: readonly Runtime[] = ["trellis", "compat", "langgraph"];

/**
 * Where checkpoints go in a workload variant. `sqlite` runs every runtime's SQLite store with
 * `synchronous=NORMAL` in WAL mode — what LangGraph.js's saver gets from better-sqlite3's build
 * defaults; `sqlite-full` with `synchronous=FULL` (an fsync per commit) — Trellis's default.
 */
export type SaverKind = "none" | "memory" | "sqlite" | "sqlite-full";

/** How a saver kind reads in a row title. */
export function saverLabel(kind: SaverKind): string {
  return { none: "no saver", memory: "memory", sqlite: "SQLite", "sqlite-full": "SQLite sync=FULL" }[kind];
}

/** The `synchronous` pragma of a SQLite saver kind. */
export function sqliteSynchronous(kind: SaverKind): "NORMAL" | "FULL" {
  return kind === "sqlite-full" ? "FULL" : "NORMAL";
}

/**
 * One timed run of a workload. `run` is the only part that is timed; everything it needs (a compiled
 * graph, a fresh saver, a database file) is made before, and `measure`/`dispose` run after.
 */
export interface Trial {
  /** The work being measured. Resolves to the final state (or what stands for it). */
  run(): Promise<unknown>;
  /** Bytes the run left in its saver, when it has one. */
  storedBytes?(): Promise<number>;
  /** Frees files and connections. */
  dispose?(): Promise<void>;
}

/** What a workload implementation needs to know besides its runtime. */
export interface MakeContext {
  /** Tiny sizes, for the correctness test. */
  tiny: boolean;
  /** A directory for database files, removed by the caller. */
  tmpDir: string;
}

/** A workload implementation: makes trials, one per run. */
export interface Impl {
  trial(): Promise<Trial>;
}

/** One row of the table: a workload in one variant, implemented for the three runtimes. */
export interface Workload {
  /** Stable id, e.g. `b-agent/memory`. */
  id: string;
  /** Row label in the table. */
  title: string;
  /** The letter, (a)…(g). */
  group: string;
  saver: SaverKind;
  /** Timed runs (after `warmup` untimed ones) in a full and a quick run. */
  runs: { full: number; quick: number };
  warmup: { full: number; quick: number };
  /** Builds the implementation for `runtime`. */
  make(runtime: Runtime, ctx: MakeContext): Promise<Impl>;
  /** Brings a final state to a shape that is the same for every runtime, for the correctness test. */
  digest(state: unknown, runtime: Runtime): unknown;
  /** True when `make("compat")` runs the LangGraph.js implementation on `@trellis/langgraph`. */
  compat?: boolean;
  /**
   * Set when the native Trellis program is not the LangGraph.js one (another reducer, say): the id of
   * the workload whose native program is, where the compat table reads the layer's cost instead.
   */
  sameProgramAs?: string;
  /** How many "units" one run does (nodes, tasks…), for per-unit times. */
  units?: { count: number; name: string };
}

/** A deterministic pseudo-random generator (mulberry32), so every runtime sees the same data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A UUID-shaped string from a deterministic generator. */
export function fakeUuid(next: () => number): string {
  let hex = "";
  for (let i = 0; i < 32; i++) hex += Math.floor(next() * 16).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** Bytes of a value serialized as JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "");
}
