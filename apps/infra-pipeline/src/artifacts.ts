/**
 * Artifact files (the seed's `artifacts.py`): one directory per request id holding the Terraform files
 * of the latest revision, a copy of every revision under `.revisions/<n>/`, and the agents' JSON
 * records (`plan.json`, `review.json`, `deployment.json`).
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { TrellisError } from "@trellis/core";
import type { ArtifactFile } from "./contracts.js";

/**
 * A Terraform file's text with its hash.
 *
 * @example
 * const files: SourceFile[] = await store.readTerraform("req-1");
 */
export interface SourceFile {
  path: string;
  content: string;
  sha256: string;
}

/**
 * The JSON records an agent keeps next to the Terraform files.
 *
 * @example
 * await store.writeRecord("req-1", "plan", planningOutput);
 */
export type RecordName = "plan" | "review" | "deployment";

const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const TF_FILE = /^[A-Za-z0-9][A-Za-z0-9_.-]*\.tf$/;

/**
 * The SHA-256 of a text, hex.
 *
 * @example
 * sha256("x").length; // 64
 */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Whether a path may name a Terraform file in a request directory: a plain `*.tf` name, no folders.
 *
 * @example
 * isTerraformFileName("main.tf"); // true
 * isTerraformFileName("../etc/passwd.tf"); // false
 */
export function isTerraformFileName(path: string): boolean {
  return TF_FILE.test(path);
}

/**
 * Reads and writes a pipeline's artifacts under one root directory.
 *
 * @example
 * const store = new ArtifactStore(".trellis/infra-pipeline/artifacts");
 * const files = await store.writeTerraform("req-1", [{ path: "main.tf", content }], 1);
 */
export class ArtifactStore {
  /** Absolute path of the root directory. */
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /**
   * The directory of one request.
   *
   * @example
   * store.directoryFor("req-1"); // "/…/artifacts/req-1"
   */
  directoryFor(requestId: string): string {
    if (!REQUEST_ID.test(requestId)) {
      throw new Error(`Request id "${requestId}" cannot name a directory: use letters, digits, ".", "_" and "-".`);
    }
    return join(this.root, requestId);
  }

  /**
   * Replaces the request's Terraform files with `files` (removing `.tf` files not among them) and keeps
   * a copy under `.revisions/<revision>/`. Returns what was written, sorted by path.
   *
   * @example
   * await store.writeTerraform("req-1", [{ path: "main.tf", content: "…" }], 2);
   */
  async writeTerraform(
    requestId: string,
    files: ReadonlyArray<{ path: string; content: string }>,
    revision: number,
  ): Promise<ArtifactFile[]> {
    const dir = this.directoryFor(requestId);
    const copy = join(dir, ".revisions", String(revision));
    await mkdir(copy, { recursive: true });
    const names = new Set<string>();
    for (const f of files) {
      if (!isTerraformFileName(f.path)) throw new Error(`Refusing to write "${f.path}": only plain *.tf file names.`);
      names.add(f.path);
    }
    for (const existing of await readdir(dir)) {
      if (existing.endsWith(".tf") && !names.has(existing)) await rm(join(dir, existing));
    }
    const out: ArtifactFile[] = [];
    for (const f of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
      await writeFile(join(dir, f.path), f.content);
      await writeFile(join(copy, f.path), f.content);
      out.push({ path: f.path, sha256: sha256(f.content), bytes: Buffer.byteLength(f.content) });
    }
    return out;
  }

  /**
   * The request's current `.tf` files, sorted by path (empty when there are none).
   *
   * @example
   * for (const f of await store.readTerraform("req-1")) console.log(f.path, f.sha256);
   */
  async readTerraform(requestId: string): Promise<SourceFile[]> {
    const dir = this.directoryFor(requestId);
    let names: string[];
    try {
      names = (await readdir(dir)).filter((n) => n.endsWith(".tf")).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const out: SourceFile[] = [];
    for (const path of names) {
      const content = await readFile(join(dir, path), "utf8");
      out.push({ path, content, sha256: sha256(content) });
    }
    return out;
  }

  /**
   * Stores an agent's record as `<name>.json` in the request directory.
   *
   * @example
   * await store.writeRecord("req-1", "review", reviewOutput);
   */
  async writeRecord(requestId: string, name: RecordName, data: unknown): Promise<void> {
    const dir = this.directoryFor(requestId);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${name}.json`), `${JSON.stringify(data, null, 2)}\n`);
  }

  /**
   * Makes `owner` (the thread the request runs on) the owner of the request's directory, or checks that
   * it is already: a request id is something a client may put in its input, so without this a second
   * conversation naming another's request id would write over that one's plan and Terraform files. The
   * first conversation to plan the request owns it; another gets an error naming the id, and nothing is
   * written. Idempotent for the owner (a re-run planning step).
   *
   * @example
   * await store.claim("req-1", threadId); // then writeRecord, writeTerraform…
   */
  async claim(requestId: string, owner: string): Promise<void> {
    const dir = this.directoryFor(requestId);
    await mkdir(dir, { recursive: true });
    const marker = join(dir, ".owner");
    try {
      await writeFile(marker, owner, { flag: "wx" });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if ((await readFile(marker, "utf8")) === owner) return;
    throw new TrellisError(
      "CONFLICT",
      `Request id "${requestId}" belongs to another conversation: start this one without a request_id, and a new one is made.`,
      { details: { requestId } },
    );
  }

  /**
   * Reads a record, or undefined when it is missing or unreadable.
   *
   * @example
   * const plan = await store.readRecord("req-1", "plan");
   */
  async readRecord(requestId: string, name: RecordName): Promise<unknown> {
    try {
      return JSON.parse(await readFile(join(this.directoryFor(requestId), `${name}.json`), "utf8"));
    } catch {
      return undefined;
    }
  }

  /**
   * The request ids that have a directory, sorted.
   *
   * @example
   * await store.listRequests(); // ["req-1", "req-2"]
   */
  async listRequests(): Promise<string[]> {
    try {
      const entries = await readdir(this.root, { withFileTypes: true });
      return entries
        .filter((e) => e.isDirectory() && REQUEST_ID.test(e.name))
        .map((e) => e.name)
        .sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  }
}
