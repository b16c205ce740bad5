/**
 * Child process: the Trellis server as users run it (Hono on @hono/node-server, the embedded queue,
 * SQLite in WAL mode) serving the bench graphs on 127.0.0.1. Usage: `node trellis-server.js <dir>`;
 * sends `{ type: "ready", url }` over IPC, closes on `{ type: "stop" }`.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "@trellis/server";

const dir = process.argv[2];
if (!dir) throw new Error("usage: trellis-server.js <dir>");
// the sources when run from them (tests, through tsx), the build otherwise
const graphs = fileURLToPath(new URL(import.meta.url.endsWith(".ts") ? "./graphs.ts" : "./graphs.js", import.meta.url));
const server = await createServer(
  {
    graphs: {
      hitl: { module: graphs, graph: "hitlGraph" },
      quick: { module: graphs, graph: "quickGraph" },
      ticker: { module: graphs, graph: "tickerGraph" },
    },
    saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
    host: "127.0.0.1",
  },
  { env: {} },
);
const { url } = await server.listen(0);
process.send?.({ type: "ready", url });
process.on("message", (m: { type?: string }) => {
  if (m.type !== "stop") return;
  void server.close().then(() => process.exit(0));
});
