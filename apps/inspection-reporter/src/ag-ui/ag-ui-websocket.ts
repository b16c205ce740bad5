import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { TrellisError } from "@trellis/core";
import { WebSocketServer } from "ws";
import type { InspectionOrchestrator } from "../orchestrator/orchestrator.js";
import { parseRunAgentInput, runAgUiTurn } from "./ag-ui-run.js";

/** The thread and run a frame names, when it names them (for the RUN_ERROR of a malformed frame). */
function idsOf(frame: unknown): { threadId?: string; runId?: string } {
  if (typeof frame !== "object" || frame === null) return {};
  const { threadId, runId } = frame as { threadId?: unknown; runId?: unknown };
  const ok = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 200;
  return { ...(ok(threadId) ? { threadId } : {}), ...(ok(runId) ? { runId } : {}) };
}

/** The WebSocket path under the Trellis server's mount point of the app. */
export const DEFAULT_WS_PATH = "/apps/inspection-reporter/ws";

/**
 * The app's AG-UI WebSocket as an upgrade handler: what the Trellis server calls for upgrades under
 * `/apps/inspection-reporter/` once the routes registered it with `ctx.onUpgrade` (the server has
 * authenticated the user already). Each text message is a `RunAgentInput`; the answer is that turn's
 * AG-UI events, one JSON event per message, turns of one socket in order; a bad input gets RUN_ERROR.
 * Each turn is a run of the server's run service: the AG-UI `threadId` is the thread of the Agent
 * Server API, owned by the user who started it.
 *
 * @example
 * const ws = inspectionSocketHandler(new InspectionOrchestrator(ctx.runs));
 * ctx.onUpgrade?.((req, socket, head, user) => ws.handle(req, socket, head, user));
 */
export function inspectionSocketHandler(
  orchestrator: InspectionOrchestrator,
  /** `maxPayload`: the largest message, the server's body limit (`ctx.maxPayload`); default 1 MiB. */
  options: { maxPayload?: number | undefined } = {},
): {
  handle(req: IncomingMessage, socket: Duplex, head: Buffer, user: string | null): void;
  close(): Promise<void>;
} {
  // a larger message closes the socket with 1009 before it is read (ws's own default is 100 MiB)
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload ?? 1024 * 1024 });
  return {
    handle(req, socket, head, user) {
      wss.handleUpgrade(req, socket, head, (ws) => {
        // ws closes the socket on a bad frame or an oversized message; an unheard 'error' would throw
        ws.on("error", () => undefined);
        let queue = Promise.resolve();
        ws.on("message", (raw) => {
          queue = queue.then(async () => {
            const send = (event: unknown) => {
              if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(event));
            };
            let frame: unknown;
            try {
              frame = JSON.parse(String(raw));
              const input = parseRunAgentInput(frame, user);
              await runAgUiTurn(orchestrator, input, send, { user, source: "app:ws" });
            } catch (error) {
              const code = error instanceof TrellisError ? error.code : "INVALID_ARGUMENT";
              send({ type: "RUN_ERROR", message: (error as Error).message, code, ...idsOf(frame) });
            }
          });
        });
      });
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
