/**
 * `trellis serve` in scale-out (a Postgres saver and a shared Redis queue) is an API process: it queues
 * runs and executes none unless `--workers n` says so; `trellis worker` executes them, serves its health
 * on `--health-port`, and the environment's URLs replace only the URLs of the config.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { dropSchema, POSTGRES_URL, requirePostgres } from "@trellis/checkpoint-postgres/testing";
import { deletePrefix, REDIS_URL, requireRedis } from "@trellis/checkpoint-redis/testing";
import { resolveConfig } from "@trellis/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeProject, REPO_DIR, startCli, type TestProject } from "./cli-harness.js";

const services = (await requirePostgres()) && (await requireRedis());

let project: TestProject;
let schema = "";
let prefix = "";
beforeEach(() => {
  project = makeProject();
  const label = randomBytes(5).toString("hex");
  schema = `trellis_cli_${label}`;
  prefix = `trellis-cli-${label}:`;
  writeFileSync(
    project.config,
    JSON.stringify({
      graphs: {
        "bp-flow": { module: join(REPO_DIR, "packages/cli/src/test/fixture-graphs.ts"), graph: "breakpointGraph" },
      },
      saver: { kind: "postgres", url: POSTGRES_URL, schema },
      queue: { kind: "redis", url: REDIS_URL, prefix, heartbeatMs: 200, orphanAfterMs: 1_000 },
    }),
  );
});
afterEach(async () => {
  project.remove();
  if (services) {
    await dropSchema(schema);
    await deletePrefix(prefix);
  }
});

async function createRun(base: string): Promise<{ thread_id: string; run_id: string }> {
  const thread = (await (await fetch(`${base}/threads`, { method: "POST", body: "{}" })).json()) as {
    thread_id: string;
  };
  const res = await fetch(`${base}/threads/${thread.thread_id}/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ assistant_id: "bp-flow", input: {} }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { thread_id: string; run_id: string };
}

async function status(base: string, run: { thread_id: string; run_id: string }): Promise<string> {
  return ((await (await fetch(`${base}/threads/${run.thread_id}/runs/${run.run_id}`)).json()) as { status: string })
    .status;
}

describe.skipIf(!services)("trellis serve and trellis worker in scale-out", () => {
  it("serve executes nothing; a worker executes the run and reports its health", { timeout: 60_000 }, async () => {
    const serve = startCli(project, ["serve", "--port", "0", "--no-studio"], /Trellis server: (http\S+)/);
    const base = await serve.started;
    expect(serve.output()).toContain("Runs: executed by `trellis worker` processes");
    const run = await createRun(base);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await status(base, run)).toBe("pending");

    const worker = startCli(project, ["worker", "--health-port", "0"], /Health: (http\S+)/);
    const health = await worker.started;
    for (let i = 0; i < 200 && (await status(base, run)) === "pending"; i++)
      await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 200 && (await status(base, run)) === "running"; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await status(base, run)).toBe("success"); // bp-flow's run ends at its breakpoint: a success
    const h = (await (await fetch(health)).json()) as { ok: boolean; worker: string; concurrency: number };
    expect(h.ok).toBe(true);
    expect(h.worker).toMatch(/^worker-/);
    expect(await worker.stop()).toBe(0);
    expect(await serve.stop()).toBe(0);
  });

  it("a worker's health names its runs only to a request with a credential", { timeout: 60_000 }, async () => {
    writeFileSync(
      project.config,
      JSON.stringify({
        graphs: { slow: { module: join(REPO_DIR, "packages/server/src/test/fixture-graphs.ts"), graph: "slowGraph" } },
        saver: { kind: "postgres", url: POSTGRES_URL, schema },
        queue: { kind: "redis", url: REDIS_URL, prefix, heartbeatMs: 200, orphanAfterMs: 1_000 },
        auth: { enabled: true, credentials: [{ user: "ops", apiKey: "ops-key" }] },
      }),
    );
    const serve = startCli(project, ["serve", "--port", "0", "--no-studio"], /Trellis server: (http\S+)/);
    const base = await serve.started;
    const worker = startCli(project, ["worker", "--health-port", "0"], /Health: (http\S+)/);
    const health = await worker.started;
    const key = { "x-api-key": "ops-key", "content-type": "application/json" };
    const thread = (await (await fetch(`${base}/threads`, { method: "POST", headers: key, body: "{}" })).json()) as {
      thread_id: string;
    };
    const run = (await (
      await fetch(`${base}/threads/${thread.thread_id}/runs`, {
        method: "POST",
        headers: key,
        body: JSON.stringify({ assistant_id: "slow", input: { delayMs: 3_000 } }),
      })
    ).json()) as { run_id: string };
    let anonymous = "";
    for (let i = 0; i < 200; i++) {
      anonymous = await (await fetch(health)).text();
      if ((JSON.parse(anonymous) as { activeRuns: number }).activeRuns === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(JSON.parse(anonymous)).toMatchObject({ ok: true, activeRuns: 1 });
    expect(anonymous).not.toContain(run.run_id);
    const wrong = await (await fetch(health, { headers: { "x-api-key": "nope" } })).text();
    expect(wrong).not.toContain(run.run_id);
    const operator = (await (await fetch(health, { headers: { "x-api-key": "ops-key" } })).json()) as {
      active: Array<{ runId: string }>;
    };
    expect(operator.active.map((a) => a.runId)).toEqual([run.run_id]);
    expect(await worker.stop()).toBe(0);
    expect(await serve.stop()).toBe(0);
  });

  it("serve --workers 1 executes runs itself", { timeout: 60_000 }, async () => {
    const serve = startCli(
      project,
      ["serve", "--port", "0", "--no-studio", "--workers", "1"],
      /Trellis server: (http\S+)/,
    );
    const base = await serve.started;
    const run = await createRun(base);
    for (let i = 0; i < 200 && ["pending", "running"].includes(await status(base, run)); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await status(base, run)).toBe("success"); // bp-flow's run ends at its breakpoint: a success
    expect(await serve.stop()).toBe(0);
  });
});

describe("TRELLIS_DATABASE_URL and TRELLIS_REDIS_URL replace only the URL", () => {
  it("keeps schema, prefix, concurrency and heartbeat settings", () => {
    const resolved = resolveConfig(
      {
        graphs: {},
        saver: { kind: "postgres", url: "postgres://old/db", schema: "app" },
        queue: {
          kind: "redis",
          url: "redis://old",
          prefix: "p:",
          concurrency: 8,
          heartbeatMs: 500,
          orphanAfterMs: 3_000,
        },
      },
      { TRELLIS_DATABASE_URL: "postgres://new/db", TRELLIS_REDIS_URL: "redis://new" },
    );
    expect(resolved.saver).toEqual({ kind: "postgres", url: "postgres://new/db", schema: "app" });
    expect(resolved.queue).toEqual({
      kind: "redis",
      url: "redis://new",
      prefix: "p:",
      concurrency: 8,
      heartbeatMs: 500,
      orphanAfterMs: 3_000,
    });
  });

  it("turns an embedded setup into a Postgres saver and a Redis queue, keeping the concurrency", () => {
    const resolved = resolveConfig(
      { graphs: {}, queue: { kind: "embedded", concurrency: 2 } },
      { TRELLIS_DATABASE_URL: "postgres://new/db", TRELLIS_REDIS_URL: "redis://new" },
    );
    expect(resolved.saver).toEqual({ kind: "postgres", url: "postgres://new/db" });
    expect(resolved.queue).toEqual({ kind: "redis", url: "redis://new", concurrency: 2 });
  });
});
