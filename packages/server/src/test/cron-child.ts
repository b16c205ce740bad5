/**
 * A server in a child process for the cron tests: `cron-child.ts <postgres url> <schema>`, on the real
 * clock, looking for due crons every 20 ms. Prints `READY <port>` once it listens on 127.0.0.1.
 */
import { createServer } from "../server.js";
import { PACKAGE_DIR, TEST_GRAPHS } from "./harness.js";

const [url, schema] = process.argv.slice(2);
if (!url || !schema) throw new Error("usage: cron-child.ts <postgres url> <schema>");
const server = await createServer(
  { graphs: TEST_GRAPHS, saver: { kind: "postgres", url, schema }, baseDir: PACKAGE_DIR },
  { env: {}, crons: { pollMs: 20 } },
);
const { port } = await server.listen(0);
console.log(`READY ${port}`);
process.once("SIGTERM", () => {
  void server.close().then(() => process.exit(0));
});
