/**
 * Issue 33 finding 1, infra-pipeline: an identical plan approval sent twice (a double click, a retried
 * request) answers the plan gate once; the deploy gate is never approved by the second copy. Both
 * copies arrive while the plan gate waits; the second is read after the first has run to the deploy
 * gate, as a slow network delivers it: it is refused (409 RESUME_MISMATCH, naming the deploy gate's
 * interrupt id) and the deploy gate stays pending — for the app's own answer (`true`) and for
 * LangChain's HITL `decisions` (what agent-chat-ui sends).
 */
import { Client } from "@langchain/langgraph-sdk";
import { holdRequest } from "@trellis/server/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApprovalRequest } from "./approval-gates.js";
import { ASSISTANT_ID } from "./graph.js";
import type { PipelineState } from "./state.js";
import { type ApiServer, requestInput, startApiServer } from "./test-support/api-server.js";

let api: ApiServer;
let url: string;
let client: Client;
beforeEach(async () => {
  api = await startApiServer({ INFRA_AGENT_EXECUTOR: "none" });
  url = await api.listen();
  client = new Client({ apiUrl: url, apiKey: null });
});
afterEach(async () => {
  await api.close();
  vi.unstubAllEnvs();
});

async function gates(threadId: string): Promise<Array<{ id: string; gate: string }>> {
  const state = await client.threads.getState(threadId);
  return state.tasks.flatMap((t) =>
    t.interrupts.map((i) => ({ id: i.id as string, gate: (i.value as ApprovalRequest).gate })),
  );
}

async function values(threadId: string): Promise<PipelineState> {
  return (await client.threads.getState(threadId)).values as unknown as PipelineState;
}

describe("an identical plan approval sent twice (issue 33)", () => {
  it.each([
    ["the app's own answer", true],
    ["LangChain HITL decisions", { decisions: [{ type: "approve" }] }],
  ])(
    "%s: the copy read once the deploy gate waits is refused, naming it; nothing is deployed",
    async (_what, answer) => {
      const { thread_id: threadId } = await client.threads.create();
      await client.runs.wait(threadId, ASSISTANT_ID, {
        input: requestInput("create an S3 bucket for logs in prd with versioning", { environment: "prd" }),
      });
      expect((await gates(threadId)).map((g) => g.gate)).toEqual(["plan"]);
      const path = `/threads/${threadId}/runs`;
      const body = { assistant_id: ASSISTANT_ID, command: { resume: answer } };
      const [first, second] = await Promise.all([holdRequest(url, path, body), holdRequest(url, path, body)]);
      const accepted = await first.send();
      expect(accepted.status).toBe(200);
      await client.runs.join(threadId, accepted.json.run_id as string);
      const [deploy] = await gates(threadId);
      expect(deploy?.gate).toBe("deploy");

      const late = await second.send();
      expect(late.status).toBe(409);
      expect(late.json.error).toBe("RESUME_MISMATCH");
      expect((late.json.details as { pending: string[] }).pending).toEqual([deploy?.id]);
      // the deploy gate still waits, unanswered
      expect(await gates(threadId)).toEqual([deploy]);
      const state = await values(threadId);
      expect(state.plan_approved).toBe(true);
      expect(state.deploy_approved).not.toBe(true);
      expect(state.deployment_output ?? null).toBeNull();
    },
  );
});
