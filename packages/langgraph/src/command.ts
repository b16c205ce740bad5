import { Command as CoreCommand, Send as CoreSend } from "@trellis/core";

/**
 * A packet for one node with its own input (map-reduce), as LangGraph's `Send`: `node` and `args`.
 *
 * @example
 * const fanOut = (state: typeof State.State) => state.topics.map((topic) => new Send("write", { topic }));
 */
export class Send<Args = unknown> extends CoreSend<Args> {
  /** The input the node receives (LangGraph's name for Trellis's `arg`). */
  get args(): Args {
    return this.arg;
  }
  readonly lg_name = "Send";
}

/**
 * Updates the state, routes, or resumes: `new Command({ update, goto, resume, graph: Command.PARENT })`.
 * It is Trellis's `Command`, which takes LangGraph's fields.
 *
 * @example
 * return new Command({ update: { approved: true }, goto: "publish" });
 * await graph.invoke(new Command({ resume: "yes" }), config);
 */
export const Command = CoreCommand;
/** The instance type of {@link Command}. */
export type Command<U = Record<string, unknown>> = CoreCommand<U>;

/**
 * True for a `Command`.
 *
 * @example
 * if (isCommand(result)) console.log(result.goto);
 */
export function isCommand(value: unknown): value is CoreCommand {
  return value instanceof CoreCommand;
}
