/**
 * A server in its own process for the memory soak: `memory-server.ts <sqlite file>`. Prints
 * `READY <port>`; answers the IPC message "mem" with its memory after a full GC.
 */
import { createServer } from "@trellis/server";
import { RELIABILITY_GRAPHS } from "../fixtures/test-server.js";

const file = process.argv[2];
if (!file) throw new Error("usage: memory-server.ts <sqlite file>");
const server = await createServer({ graphs: RELIABILITY_GRAPHS, saver: { kind: "sqlite", path: file } }, { env: {} });
const { port } = await server.listen(0);
process.on("message", (m) => {
  if (m !== "mem") return;
  (globalThis as { gc?: () => void }).gc?.();
  const u = process.memoryUsage();
  process.send?.({ rss: u.rss, heapUsed: u.heapUsed, heapTotal: u.heapTotal, external: u.external });
});
console.log(`READY ${port}`);
