/**
 * A server in a child process, for the crash tests: `serve-child.ts <sqlite file>`. Prints
 * `READY <port>` once it listens on 127.0.0.1.
 */
import { createServer } from "../server.js";
import { PACKAGE_DIR, TEST_GRAPHS } from "./harness.js";

const file = process.argv[2];
if (!file) throw new Error("usage: serve-child.ts <sqlite file>");
const server = await createServer(
  { graphs: TEST_GRAPHS, saver: { kind: "sqlite", path: file }, baseDir: PACKAGE_DIR },
  { env: {} },
);
const { port } = await server.listen(0);
console.log(`READY ${port}`);
