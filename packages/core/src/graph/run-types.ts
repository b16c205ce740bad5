import type { Command, Interrupt } from "../runtime/command.js";
import type { StreamMode } from "../runtime/stream-events.js";
import type { StateOf, StateSchema, UpdateOf } from "../state.js";

/**
 * Options of `stream` and `streamEvents`, besides the run config.
 *
 * @example
 * for await (const [ns, chunk] of graph.stream(input, { threadId, streamMode: "updates", subgraphs: true })) console.log(ns, chunk);
 */
export interface StreamOptions {
  /** One mode, or several (then chunks come as `[mode, chunk]`). Default "values". */
  streamMode?: StreamMode | readonly StreamMode[];
  /** Include events from subgraphs (then chunks come as `[namespace, …]`). */
  subgraphs?: boolean;
}

/**
 * What `invoke` resolves to: the state, plus the pending interrupts when the run paused on some.
 *
 * @example
 * const result: InvokeResult<typeof schema> = await graph.invoke({ topic: "ladders" }, { threadId: "t1" });
 * if (result.__interrupt__) console.log("waiting on", result.__interrupt__[0]?.value);
 */
export type InvokeResult<S extends StateSchema, O extends keyof S = keyof S> = Pick<StateOf<S>, O> & {
  __interrupt__?: Interrupt[];
};

/**
 * A run's end as data, from {@link CompiledGraph.run}: `values` holds the graph's output keys (`O`).
 *
 * @example
 * const result = await graph.run({ topic: "ladders" }, { threadId: "t1" });
 * if (result.status === "interrupted") console.log(result.interrupts, result.next);
 * else if (result.status === "error") console.error(result.error);
 */
export type RunResult<S extends StateSchema, O extends keyof S = keyof S> =
  | { status: "done"; values: Pick<StateOf<S>, O>; checkpointId: string | undefined }
  | {
      status: "interrupted";
      values: Pick<StateOf<S>, O>;
      interrupts: Interrupt[];
      next: string[];
      checkpointId: string | undefined;
    }
  | { status: "error"; error: unknown };

/**
 * What a graph run accepts: an update of its input keys (`I`), a Command, or null to continue a paused
 * thread.
 *
 * @example
 * const inputs: GraphInput<typeof schema>[] = [{ topic: "ladders" }, new Command({ resume: "ok" }), null];
 */
export type GraphInput<S extends StateSchema, I extends keyof S = keyof S> =
  | Pick<UpdateOf<S>, I>
  | Command<UpdateOf<S>>
  | null;
