/**
 * A scaled-out run is one trace: the API process queues the run with the request's `traceparent`, a
 * `trellis worker` in another process executes it and exports its spans over OTLP into that trace.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { dropSchema, POSTGRES_URL, requirePostgres } from "@trellis/checkpoint-postgres/testing";
import { deletePrefix, REDIS_URL, requireRedis } from "@trellis/checkpoint-redis/testing";
import { startOtlpReceiver } from "@trellis/common/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeProject, REPO_DIR, startCli, type TestProject } from "./cli-harness.js";
import { spawnCli } from "./spawn-cli.js";

const services = (await requirePostgres()) && (await requireRedis());

let project: TestProject;
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let schema = "";
let prefix = "";
beforeEach(async () => {
  project = makeProject();
  receiver = await startOtlpReceiver();
  const label = randomBytes(5).toString("hex");
  schema = `trellis_trace_${label}`;
  prefix = `trellis-trace-${label}:`;
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
  await receiver.close();
  if (services) {
    await dropSchema(schema);
    await deletePrefix(prefix);
  }
});

const TRACE_ID = "5b8aa5a2d2c872e8321cf37308d69df2";
const CALLER = "051581bf3cb55c13";

describe.skipIf(!services)("tracing across processes", () => {
  it("a run queued by the API process and executed by a worker process is one trace", { timeout: 60_000 }, async () => {
    const serve = startCli(project, ["serve", "--port", "0", "--no-studio"], /Trellis server: (http\S+)/);
    const base = await serve.started;
    const headers = { "content-type": "application/json", traceparent: `00-${TRACE_ID}-${CALLER}-01` };
    const thread = (await (await fetch(`${base}/threads`, { method: "POST", headers, body: "{}" })).json()) as {
      thread_id: string;
    };
    const created = await fetch(`${base}/threads/${thread.thread_id}/runs`, {
      method: "POST",
      headers,
      body: JSON.stringify({ assistant_id: "bp-flow", input: {} }),
    });
    const run = (await created.json()) as { run_id: string };

    let stop: (() => void) | undefined;
    const worker = spawnCli(project, ["worker"], {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url.replace(/\/v1\/traces$/, ""),
        OTEL_SERVICE_NAME: "trellis-worker",
        OTEL_BSP_SCHEDULE_DELAY: "50",
      },
      onOutput: (_out, child) => {
        stop ??= () => child.kill("SIGTERM");
      },
    });
    const status = async () =>
      ((await (await fetch(`${base}/threads/${thread.thread_id}/runs/${run.run_id}`)).json()) as { status: string })
        .status;
    for (let i = 0; i < 400 && ["pending", "running"].includes(await status()); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await status()).toBe("success");
    stop?.();
    const ended = await worker; // SIGTERM: the worker drains, then flushes its spans
    expect(ended.stderr).not.toMatch(/Error/);
    await serve.stop();

    // the run span is named after the compiled graph (bp-flow's is "graph")
    const runSpan = receiver.spans.find((s) => s.attributes["trellis.run_id"] === run.run_id);
    expect(runSpan).toMatchObject({
      name: "run graph",
      traceId: TRACE_ID,
      parentSpanId: CALLER,
      service: "trellis-worker",
    });
    expect(runSpan?.attributes["trellis.assistant_id"]).toBe("bp-flow");
    const names = receiver.spans.filter((s) => s.traceId === TRACE_ID).map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(["run graph", "superstep 0", "node draft"]));
  });
});
