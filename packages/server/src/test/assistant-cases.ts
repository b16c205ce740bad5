/**
 * The assistant cases every storage runs, driven with the official SDK `Client`: create, get, search,
 * count, update (versions), setLatest, delete; the `trellis.json` entries as system assistants; an
 * assistant's config and context reaching a node; a thread accepting another assistant of its graph;
 * everything still there after a restart.
 */
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, describe, expect, it } from "vitest";
import type { TrellisConfig } from "../config/config.js";
import { type CreateServerOptions, createServer, type TrellisServer } from "../server.js";
import { PACKAGE_DIR, TEST_GRAPHS } from "./harness.js";

/** Where a backend's servers keep their data: the same place for every server until disposed. */
export interface AssistantBackend {
  label: string;
  saver: NonNullable<TrellisConfig["saver"]>;
  dispose(): Promise<void>;
}

/** The graphs of the assistant tests: `configured` (records its configurable) and `ask` (another graph). */
export const ASSISTANT_GRAPHS: TrellisConfig["graphs"] = {
  configured: { module: "./src/test/fixture-assistants.ts", graph: "configuredGraph", name: "Configured" },
  ask: TEST_GRAPHS.ask as TrellisConfig["graphs"][string],
};

/** A server on the backend's storage, listening, with an SDK client. */
export async function assistantServer(
  backend: AssistantBackend,
  overrides: Partial<TrellisConfig> = {},
  options: CreateServerOptions = {},
): Promise<{ server: TrellisServer; url: string; client: Client; close(): Promise<void> }> {
  const server = await createServer(
    { graphs: ASSISTANT_GRAPHS, saver: backend.saver, baseDir: PACKAGE_DIR, ...overrides },
    { env: {}, ...options },
  );
  const { url } = await server.listen(0);
  return { server, url, client: new Client({ apiUrl: url, apiKey: null }), close: () => server.close() };
}

/** The status and message of a call the SDK refused. */
export async function refusal(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await call;
  } catch (error) {
    const e = error as { status?: number; message?: string };
    return { status: e.status ?? 0, message: e.message ?? String(error) };
  }
  throw new Error("the call succeeded");
}

/** Registers the shared cases for one storage. */
export function assistantCases(backend: AssistantBackend): void {
  afterAll(() => backend.dispose());

  describe(`assistants on ${backend.label}`, () => {
    it("create, get, search, count: the trellis.json entries are the system assistants", async () => {
      const s = await assistantServer(backend);
      try {
        const tag = randomUUID();
        const system = await s.client.assistants.get("configured");
        expect(system).toMatchObject({
          assistant_id: "configured",
          graph_id: "configured",
          name: "Configured",
          metadata: { created_by: "system" },
          version: 1,
        });
        const a = await s.client.assistants.create({
          graphId: "configured",
          name: "Formal bot",
          description: "answers formally",
          config: { configurable: { model: "m-formal" } },
          context: { tone: "formal" },
          metadata: { tag, team: "docs" },
        });
        expect(a).toMatchObject({
          graph_id: "configured",
          name: "Formal bot",
          description: "answers formally",
          config: { configurable: { model: "m-formal" } },
          context: { tone: "formal" },
          metadata: { tag, team: "docs" },
          version: 1,
        });
        expect(a.assistant_id).toMatch(/^[0-9a-f-]{36}$/);
        expect(await s.client.assistants.get(a.assistant_id)).toEqual(a);

        const mine = await s.client.assistants.create({
          graphId: "configured",
          assistantId: `fixed-${tag}`,
          metadata: { tag },
        });
        expect(mine).toMatchObject({ assistant_id: `fixed-${tag}`, name: "configured", config: {}, context: {} });
        // only configurable given: context mirrors it, as LangGraph keeps them
        const mirrored = await s.client.assistants.create({
          graphId: "configured",
          config: { configurable: { lang: "fr" } },
          metadata: { tag, mirrored: true },
        });
        expect(mirrored.context).toEqual({ lang: "fr" });

        expect(await s.client.assistants.count({ metadata: { tag } })).toBe(3);
        const byName = await s.client.assistants.search({ name: "formal", metadata: { tag } });
        expect(byName.map((x) => x.assistant_id)).toEqual([a.assistant_id]);
        const page = await s.client.assistants.search({
          metadata: { tag },
          sortBy: "assistant_id",
          sortOrder: "asc",
          limit: 2,
          includePagination: true,
        });
        expect(page.assistants).toHaveLength(2);
        expect(page.next).toBe("2");
        const ids = [a.assistant_id, mine.assistant_id, mirrored.assistant_id].sort();
        expect(page.assistants.map((x) => x.assistant_id)).toEqual(ids.slice(0, 2));
        const systemOnes = await s.client.assistants.search({ metadata: { created_by: "system" }, limit: 100 });
        expect(systemOnes.map((x) => x.assistant_id).sort()).toEqual(["ask", "configured"]);
        const ofGraph = await s.client.assistants.search({ graphId: "ask", limit: 100 });
        expect(ofGraph.every((x) => x.graph_id === "ask")).toBe(true);
        const selected = await s.client.assistants.search({ metadata: { tag }, select: ["assistant_id", "name"] });
        expect(Object.keys(selected[0] ?? {}).sort()).toEqual(["assistant_id", "name"]);

        // an id in use: 409 (raise, the default), the stored one with do_nothing
        expect(
          (await refusal(s.client.assistants.create({ graphId: "configured", assistantId: mine.assistant_id }))).status,
        ).toBe(409);
        const again = await s.client.assistants.create({
          graphId: "configured",
          assistantId: mine.assistant_id,
          ifExists: "do_nothing",
          name: "ignored",
        });
        expect(again).toEqual(mine);
        expect(
          (await refusal(s.client.assistants.create({ graphId: "configured", assistantId: "configured" }))).status,
        ).toBe(409);
        const unknownGraph = await refusal(s.client.assistants.create({ graphId: "nope" }));
        expect(unknownGraph.status).toBe(404);
        expect(unknownGraph.message).toContain("nope");
        expect((await refusal(s.client.assistants.get("no-such-assistant"))).status).toBe(404);
      } finally {
        await s.close();
      }
    });

    it("update adds a version, getVersions lists them newest first, setLatest picks the one runs use", async () => {
      const s = await assistantServer(backend);
      try {
        const a = await s.client.assistants.create({
          graphId: "configured",
          name: "v1",
          context: { model: "m1" },
          metadata: { stage: "draft" },
        });
        const v2 = await s.client.assistants.update(a.assistant_id, {
          context: { model: "m2" },
          metadata: { stage: "review" },
        });
        expect(v2).toMatchObject({ version: 2, name: "v1", context: { model: "m2" }, metadata: { stage: "review" } });
        const v3 = await s.client.assistants.update(a.assistant_id, { name: "v3" });
        expect(v3).toMatchObject({ version: 3, name: "v3", context: { model: "m2" } });
        expect(v3.created_at).toBe(a.created_at);

        const versions = await s.client.assistants.getVersions(a.assistant_id);
        expect(versions.map((v) => [v.version, v.name, (v.context as { model: string }).model])).toEqual([
          [3, "v3", "m2"],
          [2, "v1", "m2"],
          [1, "v1", "m1"],
        ]);
        expect(
          (await s.client.assistants.getVersions(a.assistant_id, { metadata: { stage: "draft" } })).map(
            (v) => v.version,
          ),
        ).toEqual([1]);
        expect(
          (await s.client.assistants.getVersions(a.assistant_id, { limit: 1, offset: 1 })).map((v) => v.version),
        ).toEqual([2]);

        const back = await s.client.assistants.setLatest(a.assistant_id, 1);
        expect(back).toMatchObject({ version: 1, name: "v1", context: { model: "m1" }, metadata: { stage: "draft" } });
        const run = await s.client.runs.wait(null, a.assistant_id, { input: {} });
        expect((run as { seen: unknown }).seen).toMatchObject({ model: "m1" });
        // the next update numbers after the highest version, not after the latest
        expect((await s.client.assistants.update(a.assistant_id, { name: "v4" })).version).toBe(4);

        expect(await s.client.assistants.getVersions(a.assistant_id, { metadata: { stage: "none" } })).toEqual([]);
        const missing = await refusal(s.client.assistants.setLatest(a.assistant_id, 99));
        expect(missing.status).toBe(404);
        expect(missing.message).toContain("99");
        expect((await refusal(s.client.assistants.update("no-such-assistant", { name: "x" }))).status).toBe(404);
        expect((await refusal(s.client.assistants.update(a.assistant_id, { graphId: "nope" }))).status).toBe(404);
      } finally {
        await s.close();
      }
    });

    it("delete: a user's assistant and its versions go (204), a system assistant is a 409", async () => {
      const s = await assistantServer(backend);
      try {
        const a = await s.client.assistants.create({ graphId: "configured" });
        await s.client.assistants.update(a.assistant_id, { name: "second" });
        await s.client.assistants.delete(a.assistant_id);
        expect((await refusal(s.client.assistants.get(a.assistant_id))).status).toBe(404);
        expect((await refusal(s.client.assistants.getVersions(a.assistant_id))).status).toBe(404);
        expect((await refusal(s.client.assistants.delete(a.assistant_id))).status).toBe(404);
        const system = await refusal(s.client.assistants.delete("configured"));
        expect(system.status).toBe(409);
        expect(system.message).toContain("trellis.json");
        expect((await s.client.assistants.get("configured")).assistant_id).toBe("configured");

        // delete_threads: the threads the assistant ran go with it, the others stay
        const b = await s.client.assistants.create({ graphId: "configured" });
        const gone = await s.client.threads.create();
        await s.client.runs.wait(gone.thread_id, b.assistant_id, { input: {} });
        const kept = await s.client.threads.create();
        await s.client.runs.wait(kept.thread_id, "configured", { input: {} });
        await s.client.assistants.delete(b.assistant_id, { deleteThreads: true });
        expect((await refusal(s.client.threads.get(gone.thread_id))).status).toBe(404);
        expect((await s.client.threads.get(kept.thread_id)).thread_id).toBe(kept.thread_id);
      } finally {
        await s.close();
      }
    });

    it("a run gets its assistant's config and context under its own; a thread takes any assistant of its graph", async () => {
      const s = await assistantServer(backend);
      try {
        const formal = await s.client.assistants.create({
          graphId: "configured",
          config: { configurable: { model: "m-formal", lang: "en" } },
          context: { tone: "formal" },
        });
        const casual = await s.client.assistants.create({
          graphId: "configured",
          context: { tone: "casual", model: "m-casual" },
        });
        const thread = await s.client.threads.create();

        const first = (await s.client.runs.wait(thread.thread_id, formal.assistant_id, { input: {} })) as {
          seen: unknown;
        };
        expect(first.seen).toEqual({ model: "m-formal", tone: "formal", lang: "en" });
        // the run's own configurable and context win key by key
        const own = (await s.client.runs.wait(thread.thread_id, formal.assistant_id, {
          input: {},
          config: { configurable: { lang: "de" } },
          context: { tone: "blunt" },
        })) as { seen: unknown };
        expect(own.seen).toEqual({ model: "m-formal", tone: "blunt", lang: "de" });
        // another assistant of the same graph on the same thread
        const other = (await s.client.runs.wait(thread.thread_id, casual.assistant_id, { input: {} })) as {
          seen: unknown;
          turns: string[];
        };
        expect(other.seen).toEqual({ model: "m-casual", tone: "casual", lang: null });
        expect(other.turns).toEqual(["m-formal", "m-formal", "m-casual"]);
        const after = await s.client.threads.get(thread.thread_id);
        expect(after.metadata).toMatchObject({ graph_id: "configured", assistant_id: casual.assistant_id });
        // the system assistant (the graph id) too
        const plain = (await s.client.runs.wait(thread.thread_id, "configured", { input: {} })) as { seen: unknown };
        expect(plain.seen).toEqual({ model: null, tone: null, lang: null });

        // an assistant of another graph: 409 naming the thread's graph, nothing stored
        const asker = await s.client.assistants.create({ graphId: "ask" });
        const runsBefore = (await s.client.runs.list(thread.thread_id, { limit: 100 })).length;
        const wrong = await refusal(s.client.runs.create(thread.thread_id, asker.assistant_id, { input: {} }));
        expect(wrong.status).toBe(409);
        expect(wrong.message).toMatch(/belongs to graph \\?"configured\\?"/);
        expect((await s.client.runs.list(thread.thread_id, { limit: 100 })).length).toBe(runsBefore);

        // the stored run shows the merged config and context, as LangGraph's does
        const run = await s.client.runs.create(thread.thread_id, formal.assistant_id, {
          input: {},
          context: { lang: "it" },
        });
        expect(run.assistant_id).toBe(formal.assistant_id);
        // the SDK's Run type leaves kwargs out; the Agent Server's JSON carries it
        const stored = (await s.client.runs.get(thread.thread_id, run.run_id)) as unknown as {
          kwargs: { config: { configurable: Record<string, unknown> }; context: Record<string, unknown> };
        };
        const kwargs = stored.kwargs;
        expect(kwargs.config.configurable).toMatchObject({ model: "m-formal", tone: "formal", lang: "it" });
        expect(kwargs.context).toEqual({ tone: "formal", lang: "it" });
        await s.client.runs.join(thread.thread_id, run.run_id);
        // the assistant's recursion_limit applies when the run gives none
        const limited = await s.client.assistants.create({ graphId: "configured", config: { recursion_limit: 7 } });
        const limitedRun = (await s.client.runs.create(thread.thread_id, limited.assistant_id, {
          input: {},
        })) as unknown as { run_id: string; kwargs: { config: { recursion_limit?: number } } };
        expect(limitedRun.kwargs.config.recursion_limit).toBe(7);
        await s.client.runs.join(thread.thread_id, limitedRun.run_id);

        // graph, schemas and subgraphs by a user assistant's id
        expect((await s.client.assistants.getGraph(formal.assistant_id)).nodes.map((n) => n.id)).toContain("read");
        expect((await s.client.assistants.getSchemas(formal.assistant_id)).graph_id).toBe("configured");
        expect(await s.client.assistants.getSubgraphs(formal.assistant_id)).toEqual({});
      } finally {
        await s.close();
      }
    });

    it("a graph removed from trellis.json hides its assistants until it comes back", async () => {
      const first = await assistantServer(backend);
      const asker = await first.client.assistants.create({ graphId: "ask", name: "hidden-later" });
      await first.close();
      const without = await assistantServer(backend, {
        graphs: { configured: ASSISTANT_GRAPHS.configured } as TrellisConfig["graphs"],
      });
      try {
        expect((await refusal(without.client.assistants.get(asker.assistant_id))).status).toBe(404);
        expect((await refusal(without.client.assistants.get("ask"))).status).toBe(404);
        const listed = await without.client.assistants.search({ limit: 1000 });
        expect(listed.every((x) => x.graph_id === "configured")).toBe(true);
        expect((await refusal(without.client.runs.wait(null, asker.assistant_id, { input: {} }))).status).toBe(404);
      } finally {
        await without.close();
      }
      const back = await assistantServer(backend);
      try {
        expect((await back.client.assistants.get(asker.assistant_id)).name).toBe("hidden-later");
      } finally {
        await back.close();
      }
    });

    it("assistants, their versions and a changed system assistant are still there after a restart", async () => {
      const first = await assistantServer(backend);
      const a = await first.client.assistants.create({
        graphId: "configured",
        name: "persisted",
        context: { model: "m-kept" },
      });
      await first.client.assistants.update(a.assistant_id, { context: { model: "m-kept-2" } });
      const system = await first.client.assistants.update("ask", { metadata: { note: "edited" } });
      expect(system.version).toBeGreaterThanOrEqual(2);
      await first.close();

      const second = await assistantServer(backend, {
        graphs: {
          ...ASSISTANT_GRAPHS,
          configured: { ...ASSISTANT_GRAPHS.configured, name: "Renamed in trellis.json" },
        } as TrellisConfig["graphs"],
      });
      try {
        expect(await second.client.assistants.get(a.assistant_id)).toMatchObject({
          name: "persisted",
          version: 2,
          context: { model: "m-kept-2" },
        });
        expect((await second.client.assistants.getVersions(a.assistant_id)).map((v) => v.version)).toEqual([2, 1]);
        expect(await second.client.assistants.get("ask")).toMatchObject({
          version: system.version,
          metadata: { created_by: "system", note: "edited" },
        });
        // trellis.json is the system assistant's version 1: a new name there shows at the next start
        expect((await second.client.assistants.get("configured")).name).toBe("Renamed in trellis.json");
        const run = (await second.client.runs.wait(null, a.assistant_id, { input: {} })) as { seen: unknown };
        expect(run.seen).toMatchObject({ model: "m-kept-2" });
      } finally {
        await second.close();
      }
    });

    it("a graph id squatted by a user is the graph's after the operator adds it: the user's assistant moves aside", async () => {
      const graphId = `later-${randomUUID().slice(0, 8)}`;
      const auth = {
        enabled: true,
        credentials: [
          { user: "bob", apiKey: "key-bob" },
          { user: "alice", apiKey: "key-alice" },
        ],
      };
      const first = await assistantServer(backend, { auth });
      const bob = new Client({ apiUrl: first.url, apiKey: "key-bob" });
      await bob.assistants.create({ graphId: "configured", assistantId: graphId, context: { model: "bob's" } });
      await first.close();

      const second = await assistantServer(backend, {
        auth,
        graphs: { ...ASSISTANT_GRAPHS, [graphId]: ASSISTANT_GRAPHS.configured } as TrellisConfig["graphs"],
      });
      try {
        const alice = new Client({ apiUrl: second.url, apiKey: "key-alice" });
        expect(await alice.assistants.get(graphId)).toMatchObject({
          assistant_id: graphId,
          graph_id: graphId,
          metadata: { created_by: "system" },
        });
        const ran = (await alice.runs.wait(null, graphId, { input: {} })) as { seen: Record<string, unknown> };
        expect(ran.seen.model).not.toBe("bob's");
        const bobAgain = new Client({ apiUrl: second.url, apiKey: "key-bob" });
        const [moved] = await bobAgain.assistants.search({ metadata: { moved_from: graphId } });
        expect(moved?.assistant_id).toMatch(new RegExp(`^${graphId}\\.moved-[0-9a-f]{8}$`));
        expect(moved?.context).toEqual({ model: "bob's" });
        expect(await alice.assistants.search({ metadata: { moved_from: graphId } })).toEqual([]);
        const again = await refusal(bobAgain.assistants.create({ graphId: "configured", assistantId: graphId }));
        expect(again.status).toBe(409);
        expect(again.message).toMatch(/reserved/);
      } finally {
        await second.close();
      }
    });
  });
}
