/**
 * Valid JSON never makes a 500: every request field that reaches SQL is bounded at the edge (filter
 * key counts, list lengths, NUL characters, cron schedules on one line), so what a database would
 * refuse — SQLite's expression depth and variable count, Postgres's NUL-less text and jsonb — is a 400
 * saying what to change. Run on every storage with raw fetch (the SDK would refuse some of it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrellisConfig } from "../config/config.js";
import { startTestServer, type TestServer } from "./harness.js";

const wide = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));

/** Declares the cases for one storage (`saver`), disposed after them. */
export function describeSqlBounds(o: {
  label: string;
  skip?: boolean;
  saver?: TrellisConfig["saver"];
  dispose?: () => Promise<void>;
}): void {
  describe.skipIf(o.skip)(`request fields that reach SQL are bounded at the edge (${o.label})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(o.saver ? { saver: o.saver } : {});
    });
    afterAll(async () => {
      await t?.close();
      await o.dispose?.();
    });

    const send = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${t.url}${path}`, {
        method,
        headers: { "content-type": "application/json" },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as { error?: string; message?: string } };
    };

    it("answers 400 naming the bound for filters of 999+ keys, 1,001-key filters and 33k ids", async () => {
      const thread = (await send("POST", "/threads", {})).body as { thread_id?: string };
      const cases: Array<[string, string, unknown, RegExp]> = [
        ["POST", "/threads/search", { metadata: wide(999) }, /"metadata" has 999 keys.*at most 100/],
        ["POST", "/threads/count", { metadata: wide(999) }, /at most 100/],
        ["POST", "/assistants/search", { metadata: wide(999) }, /at most 100/],
        ["POST", "/assistants/count", { metadata: wide(1001) }, /at most 100/],
        ["POST", "/runs/crons/search", { metadata: wide(999) }, /at most 100/],
        ["POST", "/runs/crons/count", { metadata: wide(999) }, /at most 100/],
        ["POST", `/threads/${thread.thread_id}/history`, { metadata: wide(999) }, /at most 100/],
        ["POST", "/threads/search", { metadata: wide(40_000) }, /at most 100/],
        [
          "POST",
          "/threads/search",
          { ids: Array.from({ length: 33_000 }, (_, i) => `t${i}`) },
          /"ids" has 33000 items.*at most 1000/,
        ],
      ];
      for (const [method, path, body, says] of cases) {
        const answer = await send(method, path, body);
        expect({ path, status: answer.status, error: answer.body.error }).toEqual({
          path,
          status: 400,
          error: "INVALID_ARGUMENT",
        });
        expect(answer.body.message).toMatch(says);
      }
      // the bound itself is answered by every storage
      for (const path of ["/threads/search", "/threads/count", "/assistants/search", "/runs/crons/search"]) {
        expect((await send("POST", path, { metadata: wide(100) })).status).toBe(200);
      }
      expect(
        (await send("POST", "/threads/search", { ids: Array.from({ length: 1000 }, (_, i) => `t${i}`) })).status,
      ).toBe(200);
    });

    it("answers 400 for a NUL character in metadata, names, cron fields, ids and URLs, and for query numbers SQL cannot take", async () => {
      const thread = (await send("POST", "/threads", {})).body as { thread_id?: string };
      const nul = "a\u0000b";
      const cases: Array<[string, string, unknown, RegExp]> = [
        ["POST", "/threads", { metadata: { note: nul } }, /metadata\.note holds the NUL character/],
        ["PATCH", `/threads/${thread.thread_id}`, { metadata: { [nul]: 1 } }, /NUL/],
        ["POST", "/threads/search", { metadata: { note: nul } }, /NUL/],
        ["POST", "/assistants", { graph_id: "ask", name: nul }, /name holds the NUL/],
        ["POST", "/assistants", { graph_id: "ask", metadata: { a: [nul] } }, /NUL/],
        ["POST", "/assistants/search", { name: nul }, /NUL/],
        ["POST", "/runs/crons", { assistant_id: "ask", schedule: "* * * * *", metadata: { a: nul } }, /NUL/],
        ["POST", "/runs/crons", { assistant_id: "ask", schedule: "* * * * *", input: { question: nul } }, /NUL/],
        ["POST", `/threads/${thread.thread_id}/state/checkpoint`, { checkpoint: { checkpoint_id: nul } }, /NUL/],
        [
          "POST",
          `/threads/${thread.thread_id}/runs`,
          { assistant_id: nul },
          /run request at assistant_id holds the NUL/,
        ],
        ["POST", "/runs/wait", { assistant_id: "ask", checkpoint_id: nul }, /NUL/],
        ["GET", `/assistants/ask%00`, undefined, /URL holds a NUL/],
        ["GET", `/threads/${thread.thread_id}/runs?status=x%00`, undefined, /URL holds a NUL/],
        ["GET", `/threads/${thread.thread_id}/runs?offset=1e308`, undefined, /"offset" query parameter/],
        ["GET", `/threads/${thread.thread_id}/runs?offset=1.5`, undefined, /"offset" query parameter/],
        ["GET", `/threads/${thread.thread_id}/runs?limit=100000`, undefined, /"limit" query parameter/],
      ];
      for (const [method, path, body, says] of cases) {
        const answer = await send(method, path, body);
        expect({ path, status: answer.status, error: answer.body.error }).toEqual({
          path,
          status: 400,
          error: "INVALID_ARGUMENT",
        });
        expect(answer.body.message).toMatch(says);
      }
    });

    it("answers 400 for a cron schedule of more than one line", async () => {
      for (const schedule of ["0 9 * * *\n", "0 9 * * *\n0 10 * * *", "0\t9 * * *"]) {
        const answer = await send("POST", "/runs/crons", { assistant_id: "ask", schedule });
        expect({ schedule, status: answer.status }).toEqual({ schedule, status: 400 });
        expect(answer.body.message).toMatch(/one line/);
      }
      const ok = await send("POST", "/runs/crons", { assistant_id: "ask", schedule: "0 9 * * *" });
      expect(ok.status).toBe(200);
    });
  });
}
