import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeProject, REPO_DIR, runCli, startCli, type TestProject } from "./cli-harness.js";

let project: TestProject;
beforeEach(() => {
  project = makeProject();
});
afterEach(() => project.remove());

function fakeStudio(): string {
  const dir = join(project.dir, "studio-dist");
  mkdirSync(join(dir, "assets"), { recursive: true });
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>Trellis Studio</title>");
  writeFileSync(join(dir, "assets/app-1.js"), "console.log(1)");
  return dir;
}

describe("trellis serve", () => {
  it("serves the API and the studio at /studio, prints the studio's URL, stops on signal", async () => {
    const serve = startCli(project, ["serve", "--port", "0", "--studio-dir", fakeStudio()], /Studio: (http\S+)/);
    const studio = await serve.started;
    expect(studio).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/studio\/$/);
    const base = studio.replace(/\/studio\/$/, "");
    expect(await (await fetch(`${base}/ok`)).json()).toEqual({ ok: true });
    const page = await fetch(`${base}/studio/`);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("Trellis Studio");
    const asset = await fetch(`${base}/studio/assets/app-1.js`);
    expect(asset.headers.get("cache-control")).toContain("immutable");
    expect((await fetch(`${base}/studio/assets/gone.js`)).status).toBe(404);
    expect(await (await fetch(`${base}/studio/threads/deep-link`)).text()).toContain("Trellis Studio");
    expect((await fetch(`${base}/studio/..%2F..%2Ftrellis.json`)).status).toBe(200); // index.html, not the file
    const assistants = (await (
      await fetch(`${base}/assistants/search`, { method: "POST", body: "{}" })
    ).json()) as Array<{ assistant_id: string }>;
    expect(assistants.map((a) => a.assistant_id).sort()).toEqual(["approval-flow", "bp-flow"]);
    expect(serve.output()).toContain("Saver: SQLite");
    expect(await serve.stop()).toBe(0);
  });

  it("says how to build the studio when it is missing", async () => {
    const serve = startCli(
      project,
      ["serve", "--port", "0", "--studio-dir", join(project.dir, "none")],
      /Studio: (http\S+)/,
    );
    const studio = await serve.started;
    const res = await fetch(studio);
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("npm run build");
    expect(serve.output()).toContain("The studio is not built");
    await serve.stop();
  });

  it("refuses a port that is taken, in plain words (exit 1)", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", () => resolve()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await runCli(project, ["serve", "--port", String(port)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`Port ${port} on 127.0.0.1 is taken`);
    } finally {
      blocker.close();
    }
  });
});

describe("trellis worker", () => {
  it("starts a worker on the config's store and stops on signal", async () => {
    const worker = startCli(project, ["worker"], /Trellis worker (worker-\S+)/);
    expect(await worker.started).toMatch(/^worker-/);
    expect(worker.output()).toContain("workers are for a Postgres saver");
    expect(await worker.stop()).toBe(0);
  });
});

describe("trellis dev", () => {
  it("serves from the sources and restarts when trellis.json changes", async () => {
    const dev = startCli(project, ["dev", "--port", "0", "--studio-dir", fakeStudio()], /Studio: (http\S+)/);
    const studio = await dev.started;
    expect((await fetch(studio.replace(/\/studio\/$/, "/ok"))).status).toBe(200);
    expect(dev.output()).toMatch(/\[trellis dev\] watching .*trellis\.json/);
    writeFileSync(project.config, `${JSON.stringify(JSON.parse(await readText(project.config)), null, 2)}\n`);
    await waitFor(() => /changed: restarting[\s\S]*Studio: http/.test(dev.output()), 30_000);
    expect(await dev.stop()).toBe(0);
  }, 60_000);
});

describe("the trellis bin as a child process", () => {
  it("runs a graph and answers its interrupts from piped stdin", async () => {
    const child = spawn(
      process.execPath,
      [
        "--conditions=@trellis/source",
        "--import",
        pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href,
        join(REPO_DIR, "packages/cli/src/bin.ts"),
        "run",
        "approval-flow",
        "--input",
        '{"request":"press"}',
      ],
      { cwd: project.dir, stdio: ["pipe", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" } },
    );
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      // answer each question when it is asked, as a person would
      if (out.endsWith("(text or JSON) › ")) child.stdin.write("shorter\n");
      if (out.endsWith("(y/n) › ")) child.stdin.end("y\n");
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out).toContain("? Any changes to the draft? (text or JSON) › shorter");
    expect(out).toContain("status: approved");
  }, 30_000);
});

async function readText(path: string): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  return readFile(path, "utf8");
}

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}
