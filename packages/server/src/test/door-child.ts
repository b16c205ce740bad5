/**
 * A server in a child process for the door tests and the raw-socket fuzzer:
 * `door-child.ts <sqlite file> [config overrides as JSON]`. Auth is on (users ana: `key-ana`, bo:
 * `key-bo`, the operator ops: `key-ops`), the body limit is 64 KiB, and two apps are mounted: `tutor` (an echo WebSocket at
 * `/apps/tutor/echo`) and `crashy` (upgrade handlers that throw). Prints `READY <port>` once it
 * listens on 127.0.0.1; a crash is the child's exit, which the tests see.
 */
import type { TrellisConfig } from "../config/config.js";
import { createServer } from "../server.js";
import { PACKAGE_DIR, TEST_GRAPHS } from "./harness.js";

const file = process.argv[2];
if (!file) throw new Error("usage: door-child.ts <sqlite file> [overrides json]");
const overrides = JSON.parse(process.argv[3] ?? "{}") as Partial<TrellisConfig>;
const config: TrellisConfig = {
  graphs: {
    ...TEST_GRAPHS,
    tutor: { module: "./src/test/fixture-app.ts", graph: "makeGraph", routes: "routes" },
    crashy: { module: "./src/test/fixture-app.ts", graph: "makeGraph", routes: "crashyRoutes" },
  },
  saver: { kind: "sqlite", path: file },
  auth: {
    enabled: true,
    credentials: [
      { user: "ana", apiKey: "key-ana" },
      { user: "bo", apiKey: "key-bo" },
      { user: "ops", apiKey: "key-ops", role: "operator" },
    ],
  },
  limits: { bodyBytes: 64 * 1024 },
  baseDir: PACKAGE_DIR,
  ...overrides,
};
const server = await createServer(config, { env: {} });
const { port } = await server.listen(0);
console.log(`READY ${port}`);
