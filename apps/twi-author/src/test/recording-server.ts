/**
 * A local HTTP server (127.0.0.1, random port) that records every request and answers from a
 * handler: the stand-in for the Bot Connector, the token endpoint and the Telegram Bot API in tests.
 * @internal
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** A recorded request. @internal */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: unknown;
}

/** A running recording server. @internal */
export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a recording server; `answer` picks the status and JSON body of each reply. @internal */
export async function startRecordingServer(
  answer: (req: RecordedRequest) => { status?: number; json: unknown } = () => ({ json: { ok: true } }),
): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // form bodies stay text
      }
      const recorded = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
      requests.push(recorded);
      const reply = answer(recorded);
      res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
      res.end(JSON.stringify(reply.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
