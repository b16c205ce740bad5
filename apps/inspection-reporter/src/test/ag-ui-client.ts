// A minimal AG-UI frontend for the tests: a WebSocket client that sends RunAgentInput messages, keeps the
// conversation as the frontend would (user messages it typed, assistant text it received) and checks
// every event against the AG-UI schemas of @ag-ui/core.
import { randomUUID } from "node:crypto";
import { EventSchemas } from "@ag-ui/core/schemas";
import WebSocket from "ws";

/** An AG-UI event as received. */
export interface ReceivedEvent {
  type: string;
  [key: string]: unknown;
}

/** One turn as the frontend saw it. */
export interface FrontendTurn {
  events: ReceivedEvent[];
  /** The assistant text messages of the turn, in order (streamed deltas joined). */
  texts: string[];
  finished: ReceivedEvent | undefined;
}

/**
 * A frontend talking AG-UI over one WebSocket.
 *
 * @example
 * const fe = await WsFrontend.connect(wsUrl);
 * const turn = await fe.say("Hallo");
 */
export class WsFrontend {
  readonly threadId: string;
  readonly messages: { id: string; role: "user" | "assistant"; content: string }[] = [];
  readonly #ws: WebSocket;

  private constructor(ws: WebSocket, threadId: string) {
    this.#ws = ws;
    this.threadId = threadId;
  }

  /** Opens the socket. */
  static async connect(url: string, threadId: string = randomUUID()): Promise<WsFrontend> {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    return new WsFrontend(ws, threadId);
  }

  /** Sends raw text and collects events until RUN_FINISHED or RUN_ERROR. */
  sendRaw(text: string): Promise<ReceivedEvent[]> {
    const events: ReceivedEvent[] = [];
    return new Promise((resolve, reject) => {
      const onMessage = (raw: WebSocket.RawData) => {
        const event = JSON.parse(String(raw)) as ReceivedEvent;
        events.push(event);
        if (event.type === "RUN_FINISHED" || event.type === "RUN_ERROR") {
          this.#ws.off("message", onMessage);
          resolve(events);
        }
      };
      this.#ws.on("message", onMessage);
      this.#ws.once("error", reject);
      this.#ws.send(text);
    });
  }

  /** Types a user message, sends the conversation as a RunAgentInput and records the assistant's texts. */
  async say(content: string): Promise<FrontendTurn> {
    this.messages.push({ id: randomUUID(), role: "user", content });
    const input = {
      threadId: this.threadId,
      runId: randomUUID(),
      messages: this.messages,
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    };
    const events = await this.sendRaw(JSON.stringify(input));
    for (const event of events) EventSchemas.parse(event);
    const texts = new Map<string, string>();
    for (const e of events) {
      if (e.type === "TEXT_MESSAGE_START") texts.set(e.messageId as string, "");
      if (e.type === "TEXT_MESSAGE_CONTENT") {
        texts.set(e.messageId as string, (texts.get(e.messageId as string) ?? "") + (e.delta as string));
      }
    }
    for (const [id, text] of texts) this.messages.push({ id, role: "assistant", content: text });
    return { events, texts: [...texts.values()], finished: events.find((e) => e.type === "RUN_FINISHED") };
  }

  close(): void {
    this.#ws.close();
  }
}
