/**
 * Prints a pipeline's events node by node, as the seed's CLI does (`node_name:` then its output).
 */
import type { Writable } from "node:stream";
import { messageText } from "@trellis/models";
import type { PipelineEvent } from "../pipeline.js";
import type { PipelineMessage } from "../state.js";

/**
 * Writes events to a stream: a `node:` header when a node starts talking, its progress lines, then the
 * message it added to the conversation.
 *
 * @example
 * const printer = new EventPrinter(process.stdout);
 * for await (const e of pipeline.stream(request)) printer.print(e);
 */
export class EventPrinter {
  readonly #out: Writable;
  #current: string | undefined;

  constructor(out: Writable) {
    this.#out = out;
  }

  /** Prints one event. */
  print(event: PipelineEvent): void {
    switch (event.type) {
      case "progress":
        this.#header(event.node);
        this.#line(`  · ${event.text}`);
        return;
      case "update": {
        this.#header(event.node);
        const messages = (event.update.messages ?? []) as PipelineMessage[];
        const text = messages.map((m) => messageText(m)).join("\n");
        if (text) this.#line(indent(text));
        else if (event.node === "plan_approval") this.#line("  no approval needed");
        else if (event.node === "deploy_approval" && event.update.current_agent === "end_success") {
          this.#line("  dry run: deployment skipped");
        }
        this.#current = undefined;
        return;
      }
      case "approval":
        this.#header(event.request.gate === "plan" ? "plan_approval" : "deploy_approval");
        this.#line(`  ${event.request.question} (${event.request.reasons.join("; ")})`);
        this.#current = undefined;
        return;
    }
  }

  #header(node: string): void {
    if (this.#current === node) return;
    this.#current = node;
    this.#line(`${node}:`);
  }

  #line(text: string): void {
    this.#out.write(`${text}\n`);
  }
}

function indent(text: string): string {
  return text
    .trimEnd()
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}
