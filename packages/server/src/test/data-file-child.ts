/**
 * A server in a child process for data-file-lock.test.ts: `data-file-child.ts <sqlite file>`. Prints
 * `READY <port> <ms to open>` once it listens on 127.0.0.1, and closes cleanly on SIGTERM. A server
 * refused the file exits non-zero with the reason on stderr, as `trellis-server` does.
 */
import { createServer } from "../server.js";
import { PACKAGE_DIR, TEST_GRAPHS } from "./harness.js";

const file = process.argv[2];
if (!file) throw new Error("usage: data-file-child.ts <sqlite file>");
const started = Date.now();
try {
  const server = await createServer(
    {
      graphs: { slow: TEST_GRAPHS.slow } as typeof TEST_GRAPHS,
      saver: { kind: "sqlite", path: file },
      baseDir: PACKAGE_DIR,
    },
    { env: {} },
  );
  const opened = Date.now() - started;
  const { port } = await server.listen(0);
  process.once("SIGTERM", () => {
    void server.close().then(() => process.exit(0));
  });
  console.log(`READY ${port} ${opened}`);
} catch (error) {
  console.error(`[trellis-server] ${(error as Error)?.message ?? String(error)}`);
  process.exit(1);
}
