// RSS of a server whose 45 SSE readers of a 10 MB run (40 events of 256 KB) stall after the first bytes
// (finding 8 of issue 33). Run: node --expose-gc --conditions=@trellis/source --import tsx scripts/sse-stalled-readers.ts
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createServer } from "@trellis/server";

const dir = mkdtempSync(join(tmpdir(), "trellis-sse-mem-"));
const server = await createServer(
  {
    graphs: { chatty: { module: "./src/test/fixture-chatty.ts", graph: "chattyGraph" } },
    saver: { kind: "sqlite", path: join(dir, "db.sqlite") },
    baseDir: resolve("packages/server"),
  },
  { env: {} },
);
const { url } = await server.listen(0);
const post = async (path: string, body: unknown) =>
  (await (await fetch(`${url}${path}`, { method: "POST", body: JSON.stringify(body) })).json()) as Record<
    string,
    string
  >;
const thread = (await post("/threads", {})).thread_id as string;
const run = await post(`/threads/${thread}/runs`, {
  assistant_id: "chatty",
  input: { count: 40, chunkBytes: 256 * 1024 },
});
await server.manager.waitFor(run.run_id as string);
global.gc?.();
const before = process.memoryUsage().rss;
const port = Number(new URL(url).port);
const sockets = await Promise.all(
  Array.from(
    { length: 45 },
    () =>
      new Promise<net.Socket>((done) => {
        const s = net.connect(port, "127.0.0.1", () =>
          s.write(`GET /threads/${thread}/runs/${run.run_id}/stream HTTP/1.1\r\nHost: x\r\n\r\n`),
        );
        s.once("data", () => {
          s.pause();
          done(s);
        });
      }),
  ),
);
await new Promise((r) => setTimeout(r, 3_000));
global.gc?.();
const after = process.memoryUsage().rss;
console.log(
  `45 stalled readers of a 10 MB run: RSS ${(before / 2 ** 20).toFixed(0)} → ${(after / 2 ** 20).toFixed(0)} MB`,
);
for (const s of sockets) s.destroy();
await server.close();
rmSync(dir, { recursive: true, force: true });
