/**
 * Child process: LangGraph's own dev server (`@langchain/langgraph-api`, what `langgraph dev` starts:
 * in-memory with a file flush, its in-process queue) serving `langgraph-graphs.ts`. The package is not a
 * dependency of the repository: install it anywhere (see docs/performance.md) and pass the directory.
 * Usage: `node langgraph-server.js <dir> <install dir>`; sends `{ type: "ready", url }` over IPC.
 */
import { copyFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [dir, installDir] = process.argv.slice(2);
if (!dir || !installDir) throw new Error("usage: langgraph-server.js <dir> <install dir>");

/** A free loopback port (the dev server wants a number, not 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

// the graphs are loaded from the install so they share its @langchain/langgraph
const graphFile = join(installDir, "trellis-bench-graphs.mjs");
copyFileSync(fileURLToPath(new URL("./langgraph-graphs.js", import.meta.url)), graphFile);
const api = (await import(
  pathToFileURL(join(installDir, "node_modules/@langchain/langgraph-api/dist/server.mjs")).href
)) as { startServer(options: Record<string, unknown>): Promise<{ host: string; cleanup(): Promise<void> }> };
const port = await freePort();
const { cleanup } = await api.startServer({
  port,
  nWorkers: 10,
  host: "127.0.0.1",
  cwd: dir,
  graphs: { hitl: `${graphFile}:hitlGraph`, quick: `${graphFile}:quickGraph`, ticker: `${graphFile}:tickerGraph` },
});
process.send?.({ type: "ready", url: `http://127.0.0.1:${port}` });
process.on("message", (m: { type?: string }) => {
  if (m.type !== "stop") return;
  void cleanup().then(() => process.exit(0));
});
