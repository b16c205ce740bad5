import type { SseEvent } from "./api-types.js";

/**
 * Splits a text/event-stream into events as chunks arrive (chunks may cut lines anywhere). `data` is
 * parsed as JSON when it is JSON.
 *
 * @example
 * const p = new SseParser();
 * p.push("event: values\ndata: {\"a\":1}\n\n"); // [{ id: undefined, event: "values", data: { a: 1 } }]
 */
export class SseParser {
  #buffer = "";
  #event = "message";
  #data: string[] = [];
  #id: string | undefined;

  /** Feeds a chunk; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    this.#buffer += chunk;
    const out: SseEvent[] = [];
    let nl = this.#buffer.search(/\r?\n/);
    while (nl >= 0) {
      const line = this.#buffer.slice(0, nl);
      this.#buffer = this.#buffer.slice(this.#buffer[nl] === "\r" ? nl + 2 : nl + 1);
      const done = this.#line(line);
      if (done) out.push(done);
      nl = this.#buffer.search(/\r?\n/);
    }
    return out;
  }

  #line(line: string): SseEvent | undefined {
    if (line === "") {
      if (this.#data.length === 0) {
        this.#event = "message";
        return undefined;
      }
      const text = this.#data.join("\n");
      let data: unknown = text;
      try {
        data = JSON.parse(text);
      } catch {
        // plain text data
      }
      const event = { id: this.#id, event: this.#event, data };
      this.#event = "message";
      this.#data = [];
      return event;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") this.#event = value;
    else if (field === "data") this.#data.push(value);
    else if (field === "id") this.#id = value;
    return undefined;
  }
}
