/**
 * Every error code a run reports over the Agent Server API is one of Trellis's (`TrellisErrorCode`):
 * a node's own error (a `TypeError`) is `INTERNAL` with its class in `details.name` — it used to be
 * reported as `"TypeError"`, outside the union — and a run past its time limit is `RUN_TIMEOUT`, now in
 * the union with its HTTP status. Through the official SDK client.
 */
import { isTrellisErrorCode } from "@trellis/checkpoint";
import { describe, expect, it } from "vitest";
import { httpStatusOf } from "../http/http-status.js";
import { sdkServer } from "./harness.js";

const s = sdkServer({
  graphs: {
    "type-error": { module: "./src/test/fixture-failures.ts", graph: "typeErrorGraph" },
    "wait-forever": { module: "./src/test/fixture-failures.ts", graph: "waitForeverGraph" },
  },
  limits: { runTimeMs: 200 },
});

interface RunWithError {
  status: string;
  error: { error: string; message: string; details?: unknown } | null;
}

async function failedRun(graph: string): Promise<RunWithError> {
  const thread = await s.client.threads.create();
  const run = await s.client.runs.create(thread.thread_id, graph, { input: {} });
  await s.client.runs.join(thread.thread_id, run.run_id);
  return (await s.client.runs.get(thread.thread_id, run.run_id)) as unknown as RunWithError;
}

describe("run error codes", () => {
  it("a node's plain TypeError is INTERNAL, its class named in details", async () => {
    const run = await failedRun("type-error");
    expect(run.status).toBe("error");
    expect(run.error).toEqual({
      error: "INTERNAL",
      message: "n.toFixed is not a function",
      details: { name: "TypeError" },
    });
    expect(isTrellisErrorCode(run.error?.error)).toBe(true);
  });

  it("a run past its time limit is RUN_TIMEOUT, a code of the union with its HTTP status", async () => {
    const run = await failedRun("wait-forever");
    expect(run.status).toBe("timeout");
    expect(run.error?.error).toBe("RUN_TIMEOUT");
    expect(isTrellisErrorCode(run.error?.error)).toBe(true);
    expect(httpStatusOf("RUN_TIMEOUT")).toBe(504);
    expect(httpStatusOf("RUN_ROLLED_BACK")).toBe(409);
  });
});
