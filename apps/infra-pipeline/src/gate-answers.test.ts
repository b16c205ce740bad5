/**
 * Issue 22, infra-pipeline finding 3, through the Agent Server API: an answer at a gate that is not a
 * decision re-asks at the same gate with the reason (the pause stays, and a later yes/no still
 * applies), and typed inputs of the wrong type or value stop the request before anything is planned,
 * naming the field.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ApiServer, requestInput, startApiServer } from "./test-support/api-server.js";

let api: ApiServer;
beforeEach(async () => {
  api = await startApiServer();
});
afterEach(async () => {
  await api.close();
});

type Gate = { value: { gate: string; not_a_decision?: string } };
const PRD_REQUEST = requestInput("create an S3 bucket for logs in prd with versioning", { environment: "prd" });

describe("an answer that is not a decision re-asks at the gate", () => {
  it("plan gate: 'maybe later' and 42 re-ask with the reason; the pause stays and yes then applies", async () => {
    const thread = await api.thread();
    const paused = await thread.wait({ input: PRD_REQUEST });
    expect((paused.json.__interrupt__ as Gate[])[0]?.value.gate).toBe("plan");

    for (const [answer, shown] of [
      ["maybe later", '"maybe later"'],
      [42, "42"],
    ] as const) {
      const res = await thread.wait({ command: { resume: answer } });
      expect(res.status).toBe(200);
      const gate = (res.json.__interrupt__ as Gate[] | undefined)?.[0]?.value;
      expect(gate?.gate).toBe("plan");
      expect(gate?.not_a_decision).toBe(
        `${shown} is not a decision: answer yes or no (true/false, "yes"/"no", or { "approved": true|false }).`,
      );
      expect(res.json.pending_approval).toBe("plan");
      expect(res.json.iac_output).toBeNull();
    }

    const approved = await thread.wait({ command: { resume: "yes" } });
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({ plan_approved: true, pending_approval: "deploy" });
    expect((approved.json.__interrupt__ as Gate[])[0]?.value.gate).toBe("deploy");

    // the deploy gate too: a non-answer re-asks, a no then rejects
    const again = await thread.wait({ command: { resume: "hmm" } });
    expect((again.json.__interrupt__ as Gate[])[0]?.value).toMatchObject({ gate: "deploy" });
    expect((again.json.__interrupt__ as Gate[])[0]?.value.not_a_decision).toMatch(/^"hmm" is not a decision/);
    const rejected = await thread.wait({ command: { resume: false } });
    expect(rejected.json).toMatchObject({ current_agent: "rejected", deploy_approved: false });
  });
});

describe("typed inputs are checked before anything is planned", () => {
  it.each([
    ["dry_run", { dry_run: "no" }],
    ["max_retries", { max_retries: "many" }],
    ["max_retries", { max_retries: 0 }],
    ["environment", { environment: "qa" }],
  ])("%s: %j is refused with an error naming the field; nothing is planned", async (field, bad) => {
    const thread = await api.thread();
    const res = await thread.wait({ input: { ...requestInput("create an S3 bucket for logs"), ...bad } });
    // refused when the request is accepted: a 400 naming the field
    expect(res.status).toBe(400);
    const error = res.json as { error: string; message: string };
    // the channel's declared zod schema refuses it (issue 21)
    expect(error.error).toBe("INVALID_STATE");
    expect(error.message).toMatch(new RegExp(`state key "${field}" to .*, which its schema refuses: must be `));
    const state = await api.get(`/threads/${thread.id}/state`);
    // nothing was written: the thread has no checkpoint at all
    expect((state.json.values as { planning_output?: unknown }).planning_output ?? null).toBeNull();
  });
});

describe("the typed inputs are declared on the state schema (issue 21)", () => {
  it("updateState with dry_run 'no' at the plan gate is a 400 naming the key; the state is unchanged", async () => {
    const thread = await api.thread();
    await thread.wait({ input: requestInput("create an S3 bucket for logs") });
    const before = await api.get(`/threads/${thread.id}/state`);
    const res = await api.post(`/threads/${thread.id}/state`, { values: { dry_run: "no" } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: "INVALID_STATE" });
    expect(res.json.message).toMatch(/"dry_run" to "no".*must be true or false/);
    const after = await api.get(`/threads/${thread.id}/state`);
    expect(after.json.checkpoint).toEqual(before.json.checkpoint);
  });

  it("getSchemas shows environment, dry_run and max_retries as JSON Schema", async () => {
    const res = await api.get("/assistants/infra-pipeline/schemas");
    const input = res.json.input_schema as { properties: Record<string, Record<string, unknown>> };
    expect(input.properties.environment).toMatchObject({ type: "string", enum: ["dev", "tst", "prd"], default: "dev" });
    expect(input.properties.dry_run).toMatchObject({ type: "boolean", default: false });
    expect(input.properties.max_retries).toMatchObject({ type: "integer", minimum: 1, maximum: 10, default: 3 });
    // the agents' outputs, the gates and the retry count are the graph's own, not inputs (issue 37)
    expect(Object.keys(input.properties)).toEqual(["request_id", "messages", "environment", "dry_run", "max_retries"]);
  });
});
