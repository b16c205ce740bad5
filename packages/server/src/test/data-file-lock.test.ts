import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { currentHolder, leaseOwnerOf, TrellisError } from "@trellis/checkpoint";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { takeDataFileLock } from "../operations/data-file-lock.js";
import { PACKAGE_DIR } from "./harness.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-data-file-"));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

interface Child {
  child: ChildProcess;
  /** READY: the port and how long createServer took; or how the process ended before that. */
  outcome: Promise<{ ready: true; port: number; openMs: number } | { ready: false; code: number | null }>;
  stdout(): string;
  stderr(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A server process (TypeScript through tsx) on `file`. */
function server(file: string): Child {
  const child = spawn(
    process.execPath,
    ["--conditions=@trellis/source", "--import", "tsx", join(PACKAGE_DIR, "src/test/data-file-child.ts"), file],
    { cwd: PACKAGE_DIR, env: process.env, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  let out = "";
  let err = "";
  child.stderr?.on("data", (d) => {
    err += String(d);
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const outcome = new Promise<Awaited<Child["outcome"]>>((resolve) => {
    child.stdout?.on("data", (d) => {
      out += String(d);
      const m = /READY (\d+) (\d+)/.exec(out);
      if (m) resolve({ ready: true, port: Number(m[1]), openMs: Number(m[2]) });
    });
    void exit.then(({ code }) => resolve({ ready: false, code }));
  });
  return { child, outcome, exit, stdout: () => out, stderr: () => err };
}

describe("one server per SQLite data file", () => {
  it("a second server process on the same file refuses to start, naming the file and the holder; after a SIGKILL of the first a new one starts at once", {
    timeout: 60_000,
  }, async () => {
    const file = join(dir, "shared.sqlite");
    const first = server(file);
    expect(await first.outcome).toMatchObject({ ready: true });

    const second = server(file);
    const refused = await second.outcome;
    expect(refused).toEqual({ ready: false, code: 1 });
    expect(second.stderr()).toContain(`The data file ${file} is in use by another Trellis server`);
    expect(second.stderr()).toContain(`pid ${first.child.pid} on ${currentHolder().host}`);
    // The first one never noticed: it still serves.
    expect(first.child.exitCode).toBeNull();
    const { port } = (await first.outcome) as { port: number };
    expect((await fetch(`http://127.0.0.1:${port}/ok`)).status).toBe(200);

    first.child.kill("SIGKILL");
    await first.exit;
    const third = server(file);
    const started = await third.outcome;
    expect(started).toMatchObject({ ready: true });
    // At once: the dead holder is replaced, nothing waits for its heartbeat to go stale (20 s by
    // default; half of that is the bound, a margin a loaded machine keeps — the log line has the time).
    expect((started as { openMs: number }).openMs).toBeLessThan(10_000);
    expect(third.stdout()).not.toContain("waiting");
    console.log(
      `[data-file-lock] second server refused; after SIGKILL of the first a new one opened the file in ${(started as { openMs: number }).openMs} ms`,
    );

    // A clean stop gives the file back: the next server finds no holder at all.
    third.child.kill("SIGTERM");
    expect(await third.exit, third.stderr()).toEqual({ code: 0, signal: null });
    const db = new BetterSqlite3(file);
    expect(db.prepare("SELECT count(*) AS n FROM server_data_file_holder").get()).toEqual({ n: 0 });
    db.close();
  });
});

describe("takeDataFileLock", () => {
  const fresh = (name: string) => join(dir, `${name}-${Date.now()}.sqlite`);

  it("one holder per file, in this process too; release gives it back", async () => {
    const file = fresh("same-process");
    const lock = await takeDataFileLock(file);
    const error = await takeDataFileLock(file).catch((e) => e);
    expect(error).toBeInstanceOf(TrellisError);
    expect(error.code).toBe("INVALID_CONFIG");
    expect(error.details).toMatchObject({ reason: "DATA_FILE_IN_USE", file, pid: process.pid });
    await lock.release();
    const again = await takeDataFileLock(file);
    await again.release();
  });

  it("a holder that is dead, or whose pid was reused, is replaced at once", async () => {
    const gone = spawnSync(process.execPath, ["-e", ""]).pid as number;
    for (const holder of [
      { ...currentHolder(), pid: gone },
      { ...currentHolder(), start: "1" },
    ]) {
      const file = fresh("dead");
      const lock = await takeDataFileLock(file);
      await lock.release();
      plant(file, leaseOwnerOf("server-old", holder), Date.now());
      const started = Date.now();
      const taken = await takeDataFileLock(file, { staleAfterMs: 60_000 });
      // not a wait for the row to go stale (60 s): well under half of it
      expect(Date.now() - started).toBeLessThan(30_000);
      await taken.release();
    }
  });

  it("a holder of another host: refused while its heartbeat moves, replaced once it stopped", async () => {
    const elsewhere = { host: "elsewhere.invalid", scope: "b/1", pid: 7, start: "9" };
    const file = fresh("elsewhere");
    await (await takeDataFileLock(file)).release();
    const owner = leaseOwnerOf("server-remote", elsewhere);
    plant(file, owner, 1);
    const logs: string[] = [];
    // Alive: it beats while this process watches.
    const beating = setInterval(() => beat(file, owner), 50);
    const refused = await takeDataFileLock(file, {
      staleAfterMs: 1_000,
      heartbeatMs: 100,
      log: (l) => logs.push(l),
    }).catch((e) => e);
    clearInterval(beating);
    expect(refused.details).toMatchObject({ reason: "DATA_FILE_IN_USE", host: "elsewhere.invalid", pid: 7 });
    expect(logs.join("\n")).toContain("cannot check");
    // Gone: its row stays as it was for staleAfterMs.
    const started = Date.now();
    const taken = await takeDataFileLock(file, { staleAfterMs: 300, heartbeatMs: 100 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    await taken.release();
  });

  it("a holder whose row was taken over is told so at its next heartbeat", async () => {
    const file = fresh("lost");
    const lost: string[] = [];
    const lock = await takeDataFileLock(file, { heartbeatMs: 30, onLost: (by) => lost.push(by) });
    plant(file, "someone-else", Date.now());
    await new Promise((r) => setTimeout(r, 150));
    expect(lost).toEqual(["someone-else"]);
    await lock.release(); // removes nothing of the new holder's
    const db = new BetterSqlite3(file);
    expect(db.prepare("SELECT owner FROM server_data_file_holder").get()).toEqual({ owner: "someone-else" });
    db.close();
  });
});

/** Writes a holder row behind the lock's back, as another process would have. */
function plant(file: string, owner: string, heartbeatAt: number): void {
  const db = new BetterSqlite3(file);
  db.prepare(
    "INSERT OR REPLACE INTO server_data_file_holder (id, owner, host, pid, taken_at, heartbeat_at) VALUES (1, ?, 'h', 1, 0, ?)",
  ).run(owner, heartbeatAt);
  db.close();
}

function beat(file: string, owner: string): void {
  const db = new BetterSqlite3(file);
  db.prepare("UPDATE server_data_file_holder SET heartbeat_at = ? WHERE owner = ?").run(Date.now(), owner);
  db.close();
}
