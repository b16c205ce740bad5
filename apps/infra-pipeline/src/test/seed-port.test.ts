/**
 * Seed 001 (infra pipeline): every route of every router of the seed's `graph.py`/`router.py`, ported with
 * scripted agents (`seed-port-pipeline.ts`), run to its end on MemorySaver threads. The app's real
 * pipeline is tested in `../pipeline.test.ts`; this file keeps the seed's own pattern (re-streaming the
 * state, `updateState(..., asNode)`) as it was written.
 */

import { MemorySaver, type MessageLike } from "@trellis/core";
import { describe, expect, it } from "vitest";
import { buildPipeline, initial } from "./seed-port-pipeline.js";

const texts = (messages: MessageLike[]) => messages.map((m) => `${m.role}: ${String(m.content)}`);

describe("seed 001: orchestrator routes", () => {
  it("query → END with an answer", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver());
    const out = await graph.invoke(initial("show the status of prod"), { threadId: "q" });
    expect(trace).toEqual(["orchestrator"]);
    expect(out.intent).toBe("query");
    expect(texts(out.messages)).toEqual(["user: show the status of prod", "assistant: Status of dev: all green"]);
  });

  it("conversation → END with a reply", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver());
    const out = await graph.invoke(initial("good morning"), { threadId: "c" });
    expect(trace).toEqual(["orchestrator"]);
    expect(out.intent).toBe("conversation");
    expect(texts(out.messages)).toEqual(["user: good morning", "assistant: Hello! How can I help?"]);
  });
});

describe("seed 001: plan approval", () => {
  it("no approval needed (dev) → iac → review passed → deploy_approval pending → END", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver());
    const config = { configurable: { thread_id: "dev-1" } };
    const out = await graph.invoke(initial("create a storage account"), config);
    expect(trace).toEqual(["orchestrator", "planning", "plan_approval", "iac", "review", "deploy_approval"]);
    expect(out.review_status).toBe("passed");
    expect(out.deployment_output).toBeNull();
    expect((await graph.getState(config)).next).toEqual([]);
  });

  it("prd needs approval: pending → END; re-streaming the state with plan_approved=true continues", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver());
    const config = { configurable: { thread_id: "prd-1" } };
    const paused = await graph.invoke(initial("scale the api to 3 nodes", { environment: "prd" }), config);
    expect(trace).toEqual(["orchestrator", "planning", "plan_approval"]);
    expect(paused.pending_approval).toBe("plan");
    expect(paused.iac_output).toBeNull();

    // The seed's stream_with_approval: set plan_approved, clear pending_approval, run the state again.
    const { __interrupt__: _none, ...state } = paused;
    const again = await graph.invoke({ ...state, plan_approved: true, pending_approval: null }, config);
    expect(trace.slice(3)).toEqual(["orchestrator", "planning", "plan_approval", "iac", "review", "deploy_approval"]);
    expect(again.iac_output).toEqual({ files: ["main.bicep"], attempt: 1 });
    // The messages passed back in kept their ids, so they replaced themselves instead of doubling.
    expect(texts(again.messages)).toEqual([
      "user: scale the api to 3 nodes",
      "assistant: Plan: 1 requirement",
      "assistant: Plan: 1 requirement",
    ]);
    expect(new Set(again.messages.map((m) => m.id)).size).toBe(3);
  });

  it("prd plan approved through updateState as planning + invoke(null)", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver());
    const config = { threadId: "prd-2" };
    await graph.invoke(initial("scale the api", { environment: "prd" }), config);
    await graph.updateState(config, { plan_approved: true }, "planning");
    expect((await graph.getState(config)).next).toEqual(["plan_approval"]);
    const out = await graph.invoke(null, { ...config, recursionLimit: 10 });
    expect(trace).toEqual([
      "orchestrator",
      "planning",
      "plan_approval",
      "plan_approval",
      "iac",
      "review",
      "deploy_approval",
    ]);
    expect(out.review_status).toBe("passed");
  });

  it("prd plan rejected → rejected → END", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver());
    const config = { threadId: "prd-3" };
    await graph.invoke(initial("delete the database", { environment: "prd" }), config);
    await graph.updateState(config, { plan_approved: false }, "planning");
    const out = await graph.invoke(null, config);
    expect(trace).toEqual(["orchestrator", "planning", "plan_approval", "plan_approval", "rejected"]);
    expect(out.error).toBe("rejected");
    expect(out.iac_output).toBeNull();
    expect((await graph.getState(config)).next).toEqual([]);
  });
});

describe("seed 001: IaC ⇄ review retry loop", () => {
  it("needs_revision twice, then passed: iac runs 3 times", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver(), ["needs_revision", "needs_revision", "passed"]);
    const out = await graph.invoke(initial("add a queue", { dryRun: true }), { threadId: "retry-1" });
    expect(trace).toEqual([
      "orchestrator",
      "planning",
      "plan_approval",
      "iac",
      "review",
      "iac",
      "review",
      "iac",
      "review",
      "deploy_approval",
      "end_success",
    ]);
    expect(out.retry_count).toBe(2);
    expect(out.iac_output?.attempt).toBe(3);
    expect(texts(out.messages).at(-1)).toBe("assistant: Dry run complete.");
  });

  it("needs_revision until max_retries → failed → end_failure", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver(), ["needs_revision", "needs_revision", "needs_revision"]);
    const out = await graph.invoke(initial("add a queue"), { threadId: "retry-max" });
    expect(trace.filter((n) => n === "iac")).toHaveLength(3);
    expect(trace.at(-1)).toBe("end_failure");
    expect(out.retry_count).toBe(3);
    expect(texts(out.messages).at(-1)).toContain("Pipeline failed after 3 retries.");
    expect(texts(out.messages).at(-1)).toContain("Review findings: 1 issues");
  });

  it("max_retries from the input bounds the loop (max_retries=1)", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver(), ["needs_revision", "needs_revision"]);
    const out = await graph.invoke({ ...initial("add a queue"), max_retries: 1 }, { threadId: "retry-1max" });
    expect(trace.filter((n) => n === "iac")).toHaveLength(1);
    expect(trace.at(-1)).toBe("end_failure");
    expect(out.retry_count).toBe(1);
  });

  it("failed at once → end_failure without a retry", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver(), ["failed"]);
    const out = await graph.invoke(initial("add a queue"), { threadId: "fail-1" });
    expect(trace).toEqual(["orchestrator", "planning", "plan_approval", "iac", "review", "end_failure"]);
    expect(out.retry_count).toBe(0);
    expect(out.review_status).toBe("failed");
  });

  it("a retry loop longer than the recursion limit is reported, not silently cut", async () => {
    const { graph } = buildPipeline(new MemorySaver(), Array(20).fill("needs_revision"));
    await expect(
      graph.invoke({ ...initial("add a queue"), max_retries: 100 }, { threadId: "loop", recursionLimit: 12 }),
    ).rejects.toThrow(/recursion limit of 12.*"iac".*"review"|recursion limit of 12.*"review".*"iac"/s);
  });
});

describe("seed 001: deploy approval", () => {
  it("dry run → end_success without deploy_validate", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver());
    const out = await graph.invoke(initial("create a vnet", { dryRun: true }), { threadId: "dry" });
    expect(trace).toEqual([
      "orchestrator",
      "planning",
      "plan_approval",
      "iac",
      "review",
      "deploy_approval",
      "end_success",
    ]);
    expect(out.deployment_output).toBeNull();
    expect(texts(out.messages).at(-1)).toBe("assistant: Dry run complete.");
  });

  it("pending → END, then approved via updateState as deploy_approval → deploy_validate → end_success", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver());
    const config = { configurable: { thread_id: "deploy-ok" } };
    const paused = await graph.invoke(initial("create a vnet"), config);
    expect(paused.deployment_output).toBeNull();
    await graph.updateState(config, { deploy_approved: true, pending_approval: null }, "deploy_approval");
    expect((await graph.getState(config)).next).toEqual(["deploy_validate"]);
    const out = await graph.invoke(null, config);
    expect(trace.slice(-3)).toEqual(["deploy_approval", "deploy_validate", "end_success"]);
    expect(out.deployment_output).toEqual({ deployed: true });
    expect(out.current_agent).toBe("end");
    expect(texts(out.messages).at(-1)).toBe("assistant: Deployed.");
  });

  it("pending → END, then rejected → rejected → END", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver());
    const config = { threadId: "deploy-no" };
    await graph.invoke(initial("create a vnet"), config);
    await graph.updateState(config, { deploy_approved: false }, "deploy_approval");
    expect((await graph.getState(config)).next).toEqual(["rejected"]);
    const out = await graph.invoke(null, config);
    expect(trace.at(-1)).toBe("rejected");
    expect(out.deployment_output).toBeNull();
    expect(out.error).toBe("rejected");
  });
});

describe("seed 001 with LangGraph-style breakpoints", () => {
  it("interruptBefore plan_approval and deploy_approval, resumed with updateState + invoke(null)", async () => {
    const { graph, trace } = buildPipeline(new MemorySaver(), [], {
      interruptBefore: ["plan_approval", "deploy_approval"],
    });
    const config = { configurable: { thread_id: "bp" } };
    await graph.invoke(initial("provision a cluster", { environment: "prd" }), config);
    expect((await graph.getState(config)).next).toEqual(["plan_approval"]);
    expect(trace).toEqual(["orchestrator", "planning"]);

    await graph.updateState(config, { plan_approved: true });
    await graph.invoke(null, config);
    expect((await graph.getState(config)).next).toEqual(["deploy_approval"]);
    expect(trace).toEqual(["orchestrator", "planning", "plan_approval", "iac", "review"]);

    await graph.updateState(config, { deploy_approved: true });
    const out = await graph.invoke(null, config);
    expect(trace.slice(-3)).toEqual(["deploy_approval", "deploy_validate", "end_success"]);
    expect(out.deployment_output).toEqual({ deployed: true });
    expect((await graph.getState(config)).next).toEqual([]);
  });

  it("streams node updates in order, as the seed's astream does", async () => {
    const { graph } = buildPipeline(new MemorySaver(), ["needs_revision"]);
    const nodes: string[] = [];
    for await (const chunk of graph.stream(initial("add a bucket", { dryRun: true }), {
      threadId: "stream",
      streamMode: "updates",
    })) {
      nodes.push(...Object.keys(chunk as Record<string, unknown>));
    }
    expect(nodes).toEqual([
      "orchestrator",
      "planning",
      "plan_approval",
      "iac",
      "review",
      "iac",
      "review",
      "deploy_approval",
      "end_success",
    ]);
  });
});
