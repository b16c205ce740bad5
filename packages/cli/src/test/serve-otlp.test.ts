import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startOtlpReceiver } from "@trellis/common/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeProject, startCli, type TestProject } from "./cli-harness.js";
import { spawnCli } from "./spawn-cli.js";

let project: TestProject;
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
beforeEach(async () => {
  project = makeProject();
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  project.remove();
  await receiver.close();
});

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const CALLER = "b7ad6b7169203331";

describe("trellis serve with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("exports the run's spans over OTLP/HTTP, in the trace of the request that queued the run", async () => {
    const serve = startCli(project, ["serve", "--port", "0", "--no-studio"], /Trellis server: (http\S+)/, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url.replace(/\/v1\/traces$/, ""),
      OTEL_SERVICE_NAME: "trellis-e2e",
      OTEL_BSP_SCHEDULE_DELAY: "50",
    });
    const base = await serve.started;
    expect(serve.output()).toContain(`Traces: OTLP/HTTP to ${receiver.url}`);
    const headers = { "content-type": "application/json", traceparent: `00-${TRACE_ID}-${CALLER}-01` };
    const thread = (await (await fetch(`${base}/threads`, { method: "POST", headers, body: "{}" })).json()) as {
      thread_id: string;
    };
    const res = await fetch(`${base}/threads/${thread.thread_id}/runs/wait`, {
      method: "POST",
      headers,
      body: JSON.stringify({ assistant_id: "approval-flow", input: { request: "a haiku" } }),
    });
    expect(res.status).toBe(200);
    expect(await serve.stop()).toBe(0); // flushes the batch
    const run = receiver.spans.find((s) => s.name === "run approval-flow");
    expect(run).toMatchObject({ traceId: TRACE_ID, parentSpanId: CALLER, service: "trellis-e2e" });
    expect(run?.attributes["trellis.thread_id"]).toBe(thread.thread_id);
    const inTrace = receiver.spans.filter((s) => s.traceId === TRACE_ID).map((s) => s.name);
    expect(inTrace).toEqual(expect.arrayContaining(["superstep 0", "node write", "node review"]));
  });

  it("prints no traces line and exports nothing without the variable", async () => {
    const serve = startCli(project, ["serve", "--port", "0", "--no-studio"], /Trellis server: (http\S+)/);
    await serve.started;
    expect(serve.output()).not.toContain("Traces:");
    expect(await serve.stop()).toBe(0);
    expect(receiver.spans).toEqual([]);
  });

  it("imports no OpenTelemetry SDK module in a `trellis serve` process without the variable (and does with it)", async () => {
    const sdkModules = async (env: Record<string, string>) => {
      const log = join(project.dir, `modules-${Object.keys(env).length}.log`);
      let stopping = false;
      const served = await spawnCli(project, ["serve", "--port", "0", "--no-studio"], {
        nodeArgs: ["--import", pathToFileURL(join(import.meta.dirname, "module-log.mjs")).href],
        env: { ...env, TRELLIS_TEST_MODULE_LOG: log, TRELLIS_TEST_MODULE_MATCH: "/@opentelemetry/" },
        onOutput: (stdout, child) => {
          if (stopping || !stdout.includes("Press Ctrl+C to stop.")) return;
          stopping = true;
          // ready: everything it loads to serve is loaded (the SDK, when asked for, before it listens)
          child.kill("SIGKILL");
        },
      });
      expect(served.signal, served.stderr).toBe("SIGKILL");
      const urls = existsSync(log) ? readFileSync(log, "utf8").split("\n") : [];
      return [...new Set(urls.map((u) => /\/(@opentelemetry\/[^/]+)\//.exec(u)?.[1]).filter(Boolean))].sort();
    };
    // the API, which every span goes through, is loaded either way; the SDK only when asked for
    expect(await sdkModules({})).toEqual(["@opentelemetry/api"]);
    expect(await sdkModules({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url.replace(/\/v1\/traces$/, "") })).toEqual(
      expect.arrayContaining(["@opentelemetry/sdk-trace-node", "@opentelemetry/exporter-trace-otlp-http"]),
    );
  });
});
