/**
 * Assistants with auth on, through the official SDK `Client`: an assistant belongs to its creator (any
 * other user gets the 404 of an assistant that does not exist, on every route and for runs), the system
 * assistants of trellis.json are everyone's to read and run but no user's to change or delete.
 */
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ASSISTANT_GRAPHS, refusal } from "./assistant-cases.js";
import { startTestServer, type TestServer } from "./harness.js";

let t: TestServer;
let ana: Client;
let bo: Client;

beforeAll(async () => {
  t = await startTestServer({
    graphs: ASSISTANT_GRAPHS,
    auth: {
      enabled: true,
      credentials: [
        { user: "ana", apiKey: "key-ana" },
        { user: "bo", apiKey: "key-bo" },
      ],
    },
  });
  ana = new Client({ apiUrl: t.url, apiKey: "key-ana" });
  bo = new Client({ apiUrl: t.url, apiKey: "key-bo" });
});
afterAll(async () => {
  await t.close();
});

describe("assistants with auth on", () => {
  it("an assistant is its creator's: every route and every run of another user is a 404", async () => {
    const a = await ana.assistants.create({
      graphId: "configured",
      context: { model: "m-ana" },
      metadata: { owner: "bo", created_by: "system", team: "x" },
    });
    // the owner is the server's to set, and no user makes a system assistant
    expect(a.metadata).toEqual({ owner: "ana", team: "x" });
    expect((await ana.assistants.get(a.assistant_id)).assistant_id).toBe(a.assistant_id);

    const id = a.assistant_id;
    const calls: Array<[string, () => Promise<unknown>]> = [
      ["get", () => bo.assistants.get(id)],
      ["update", () => bo.assistants.update(id, { name: "mine now" })],
      ["delete", () => bo.assistants.delete(id)],
      ["getVersions", () => bo.assistants.getVersions(id)],
      ["setLatest", () => bo.assistants.setLatest(id, 1)],
      ["getGraph", () => bo.assistants.getGraph(id)],
      ["getSchemas", () => bo.assistants.getSchemas(id)],
      ["getSubgraphs", () => bo.assistants.getSubgraphs(id)],
      ["runs.wait", () => bo.runs.wait(null, id, { input: {} })],
      ["runs.create", async () => bo.runs.create((await bo.threads.create()).thread_id, id, { input: {} })],
    ];
    for (const [name, call] of calls) {
      const r = await refusal(call());
      expect([name, r.status]).toEqual([name, 404]);
    }
    // the same answer as a taken id, and nothing of ana's shown
    const taken = await refusal(bo.assistants.create({ graphId: "configured", assistantId: id }));
    expect(taken.status).toBe(409);
    expect(taken.message).not.toContain("m-ana");
    expect(
      (await bo.assistants.create({ graphId: "configured", assistantId: id, ifExists: "do_nothing" }).catch((e) => e))
        .status,
    ).toBe(409);

    // search and count: ana sees hers, bo does not; both see the system assistants
    const anaSees = (await ana.assistants.search({ limit: 100 })).map((x) => x.assistant_id);
    const boSees = (await bo.assistants.search({ limit: 100 })).map((x) => x.assistant_id);
    expect(anaSees).toContain(id);
    expect(boSees).not.toContain(id);
    expect(boSees).toEqual(expect.arrayContaining(["configured", "ask"]));
    expect(await bo.assistants.count({ metadata: { team: "x" } })).toBe(0);
    expect(await ana.assistants.count({ metadata: { team: "x" } })).toBe(1);

    // ana's run gets her assistant's context; the change she makes stays hers
    const run = (await ana.runs.wait(null, id, { input: {} })) as { seen: Record<string, unknown> };
    expect(run.seen.model).toBe("m-ana");
    const updated = await ana.assistants.update(id, { metadata: { owner: "bo" } });
    expect(updated.metadata?.owner).toBe("ana");
    expect((await refusal(bo.assistants.get(id))).status).toBe(404);
  });

  it("the system assistants are everyone's to read and run, no user's to change or delete", async () => {
    for (const client of [ana, bo]) {
      expect((await client.assistants.get("configured")).metadata).toEqual({ created_by: "system" });
      const run = (await client.runs.wait(null, "configured", { input: {} })) as { seen: Record<string, unknown> };
      expect(run.seen).toEqual({ model: null, tone: null, lang: null });
      const update = await refusal(client.assistants.update("configured", { context: { model: "hijack" } }));
      expect(update.status).toBe(403);
      expect(update.message).toContain("trellis.json");
      expect((await refusal(client.assistants.setLatest("configured", 1))).status).toBe(403);
      expect((await refusal(client.assistants.delete("configured"))).status).toBe(409);
      expect((await client.assistants.getVersions("configured")).map((v) => v.version)).toEqual([1]);
    }
  });
});
