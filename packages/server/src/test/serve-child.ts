/**
 * A server in a child process, for the crash tests: `serve-child.ts <sqlite file>`, or
 * `serve-child.ts <postgres url> <schema>`. Prints `READY <port>` once it listens on 127.0.0.1.
 */
import { createServer } from "../server.js";
import { PACKAGE_DIR, TEST_GRAPHS } from "./harness.js";

const file = process.argv[2];
if (!file) throw new Error("usage: serve-child.ts <sqlite file> | <postgres url> <schema>");
const schema = process.argv[3];
const saver = file.startsWith("postgres") && schema ? { kind: "postgres" as const, url: file, schema } : undefined;
const server = await createServer(
  { graphs: TEST_GRAPHS, saver: saver ?? { kind: "sqlite", path: file }, baseDir: PACKAGE_DIR },
  { env: {} },
);
const { port } = await server.listen(0);
console.log(`READY ${port}`);
