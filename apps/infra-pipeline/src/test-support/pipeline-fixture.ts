/**
 * A pipeline on a MemorySaver with its artifacts in a temporary directory and predictable request
 * ids, for tests.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@trellis/core";
import type { ChatModel } from "@trellis/models";
import { ArtifactStore } from "../artifacts.js";
import { createPipelineGraph, type PipelineGraph } from "../graph.js";
import { InfraPipeline, type PipelineEvent } from "../pipeline.js";

/**
 * What {@link pipelineFixture} returns.
 *
 * @example
 * const { pipeline, cleanup } = await pipelineFixture();
 */
export interface PipelineFixture {
  dir: string;
  graph: PipelineGraph;
  pipeline: InfraPipeline;
  store: ArtifactStore;
  cleanup(): Promise<void>;
}

/**
 * Creates a fixture. Request ids are `req-test-1`, `req-test-2`…; offline unless a model is given.
 *
 * @example
 * const f = await pipelineFixture();
 * await collect(f.pipeline.stream("create an S3 bucket for logs", { environment: "dev" }));
 */
export async function pipelineFixture(options: { model?: ChatModel } = {}): Promise<PipelineFixture> {
  const dir = await mkdtemp(join(tmpdir(), "infra-pipeline-"));
  let n = 0;
  const newRequestId = () => `req-test-${++n}`;
  const artifactsDir = join(dir, "artifacts");
  const graph = createPipelineGraph({
    artifactsDir,
    model: options.model ?? null,
    checkpointer: new MemorySaver(),
    newRequestId,
    // no executor: a deployment is refused (tests that run terraform say so)
    executor: null,
  });
  return {
    dir,
    graph,
    pipeline: new InfraPipeline(graph, { newRequestId }),
    store: new ArtifactStore(artifactsDir),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * Drains a stream of pipeline events.
 *
 * @example
 * const events = await collect(pipeline.stream("hello"));
 */
export async function collect(events: AsyncIterable<PipelineEvent>): Promise<PipelineEvent[]> {
  const out: PipelineEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/**
 * The nodes that ran, in order.
 *
 * @example
 * nodesOf(events); // ["orchestrator", "planning", "plan_approval"]
 */
export function nodesOf(events: readonly PipelineEvent[]): string[] {
  return events.flatMap((e) => (e.type === "update" ? [e.node] : []));
}
