import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { TrellisError } from "@trellis/core";
import { WebSocketServer } from "ws";
import type { InspectionOrchestrator } from "../orchestrator/orchestrator.js";
import { parseRunAgentInput, runAgUiTurn } from "./ag-ui-run.js";

/** The WebSocket path under the Trellis server's mount point of the app. */
export const DEFAULT_WS_PATH = "/apps/inspection-reporter/ws";

/** Options of {@link attachInspectionWebSocket}. */
export interface InspectionWebSocketOptions {
  orchestrator: InspectionOrchestrator;
  /** Default {@link DEFAULT_WS_PATH}. */
  path?: string;
  /**
   * Resolves the user of an upgrade request (a Fetch `Request` with the upgrade's headers; browsers
   * pass `?api_key=` or `?token=`, turned into `x-api-key` / `Authorization: Bearer`). Returning null
   * refuses the connection with 401. Leave out when the server has no auth.
   */
  authenticate?: (request: Request) => Promise<string | null>;
}

type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * The AG-UI WebSocket binding of the app on a listening HTTP server (the Trellis server's, after
 * `listen()`): each text message the client sends is a `RunAgentInput`; the server answers with that
 * turn's AG-UI events, one JSON event per message, turns of one socket in order. A bad input is
 * answered with RUN_ERROR. Returns a function that detaches it.
 *
 * The Trellis server answers every other upgrade itself (its own `/ag-ui/{id}/ws`) and closes sockets
 * on paths it does not know, so this wraps the server's upgrade listeners: requests for `path` come
 * here, all others go on to them.
 *
 * @example
 * const { server } = await trellis.listen(8123);
 * const detach = attachInspectionWebSocket(server, { orchestrator });
 * // ws://127.0.0.1:8123/apps/inspection-reporter/ws
 */
export function attachInspectionWebSocket(server: Server, options: InspectionWebSocketOptions): () => Promise<void> {
  const path = options.path ?? DEFAULT_WS_PATH;
  const wss = new WebSocketServer({ noServer: true });
  const others = server.listeners("upgrade") as UpgradeListener[];
  server.removeAllListeners("upgrade");

  const accept = async (req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) => {
    let user: string | null = null;
    if (options.authenticate) {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const key = url.searchParams.get("api_key");
      const token = url.searchParams.get("token");
      if (key) headers.set("x-api-key", key);
      if (token) headers.set("authorization", `Bearer ${token}`);
      user = await options.authenticate(new Request(url, { headers }));
      if (!user) {
        socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n");
        return;
      }
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      let queue = Promise.resolve();
      ws.on("message", (raw) => {
        queue = queue.then(async () => {
          const send = (event: unknown) => {
            if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(event));
          };
          try {
            const input = parseRunAgentInput(JSON.parse(String(raw)));
            await runAgUiTurn(options.orchestrator, input, send, { user });
          } catch (error) {
            const code = error instanceof TrellisError ? error.code : "INVALID_ARGUMENT";
            send({ type: "RUN_ERROR", message: (error as Error).message, code });
          }
        });
      });
    });
  };

  const onUpgrade: UpgradeListener = (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== path) {
      for (const listener of others) listener.call(server, req, socket, head);
      return;
    }
    accept(req, socket, head, url).catch(() => socket.destroy());
  };
  server.on("upgrade", onUpgrade);

  return async () => {
    server.off("upgrade", onUpgrade);
    for (const listener of others) server.on("upgrade", listener);
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  };
}
