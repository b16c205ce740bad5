/**
 * Assistants as data on Postgres (scale-out), through the official SDK `Client`: the shared cases, and an
 * API-only process that stores an assistant while a worker process on the same schema runs it — the
 * worker reads the assistant from Postgres, and its config reaches the node.
 */
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import { describe, expect, it } from "vitest";
import { type AssistantBackend, assistantCases, assistantServer } from "./assistant-cases.js";

const postgres = await requirePostgres();
const schema = testSchema("assistants");

const backend: AssistantBackend = {
  label: "Postgres",
  saver: { kind: "postgres", url: POSTGRES_URL, schema },
  async dispose() {
    if (postgres) await dropSchema(schema);
  },
};

describe.skipIf(!postgres)("Postgres", () => {
  assistantCases(backend);

  it("an API process stores the assistant, a worker process reads it from Postgres and runs it", async () => {
    const api = await assistantServer(backend, {}, { workers: 0 });
    const worker = await assistantServer(backend, {}, { workers: 2 });
    try {
      const a = await api.client.assistants.create({
        graphId: "configured",
        config: { configurable: { model: "m-worker" } },
        context: { tone: "terse" },
      });
      // the worker's own registry (its own pool) sees what the API process wrote
      expect((await worker.server.runs.assistant(a.assistant_id, "app")).assistant.context).toEqual({ tone: "terse" });
      const thread = await api.client.threads.create();
      const run = await api.client.runs.create(thread.thread_id, a.assistant_id, { input: {} });
      await api.client.runs.join(thread.thread_id, run.run_id);
      const state = await api.client.threads.getState<{ seen: Record<string, unknown> }>(thread.thread_id);
      expect(state.values.seen).toEqual({ model: "m-worker", tone: "terse", lang: null });
      expect((await api.client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");

      // deleted while its run waits in the queue: the worker fails the run instead of running it
      const doomed = await api.client.assistants.create({ graphId: "configured" });
      await worker.close();
      const queued = await api.client.runs.create(thread.thread_id, doomed.assistant_id, { input: {} });
      await api.client.assistants.delete(doomed.assistant_id);
      const again = await assistantServer(backend, {}, { workers: 1 });
      try {
        await api.client.runs.join(thread.thread_id, queued.run_id);
        const failed = await api.client.runs.get(thread.thread_id, queued.run_id);
        expect(failed.status).toBe("error");
        expect((await api.client.threads.getState<{ turns: string[] }>(thread.thread_id)).values.turns).toEqual([
          "m-worker",
        ]);
      } finally {
        await again.close();
      }
    } finally {
      await api.close();
      await worker.close().catch(() => undefined);
    }
  });
});
