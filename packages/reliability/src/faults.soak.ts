/**
 * Long connection-fault runs (`npm run test:soak`): 16 threads on PostgreSQL and 16 on Redis run
 * through the fault proxy while connections are reset at random and the service "restarts" three
 * times (every connection reset, new ones refused for a second). Every thread must end whole.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runToEnd } from "./fixtures/run-to-end.js";
import { FaultProxy } from "./harness/fault-proxy.js";
import { Ledger } from "./harness/ledger.js";
import { disposeTarget, newTarget, openSaver, type SaverKind } from "./harness/saver-targets.js";
import { POSTGRES_URL, REDIS_URL, requirePostgres, requireRedis } from "./harness/services.js";

const available: Partial<Record<SaverKind, boolean>> = {
  postgres: await requirePostgres(),
  redis: await requireRedis(),
};
const dir = mkdtempSync(join(tmpdir(), "trellis-faults-soak-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const THREADS = 16;
const OUTAGES = 3;

describe("soak: connection faults under load", () => {
  for (const kind of ["postgres", "redis"] as const) {
    it.skipIf(!available[kind])(
      `${kind}: ${THREADS} threads, random resets and ${OUTAGES} outages of 1 s`,
      { timeout: 600_000 },
      async () => {
        const target = newTarget(kind, dir);
        const service = kind === "postgres" ? POSTGRES_URL : REDIS_URL;
        const proxy = await FaultProxy.start(Number(new URL(service).port));
        const faulty = openSaver(target, { url: proxy.url(service) });
        if (kind === "redis")
          (faulty as unknown as { client: { on(e: string, f: () => void): void } }).client.on("error", () => {});
        const checker = openSaver(target);
        const ledgers = Array.from({ length: THREADS }, (_, i) => Ledger.open(join(dir, `${kind}-${i}.ledger.db`)));
        let stop = false;
        let resets = 0;
        const chaos = (async () => {
          let outages = 0;
          for (let tick = 0; !stop && tick < 400; tick++) {
            await new Promise((resolve) => setTimeout(resolve, 40 + ((tick * 37) % 80)));
            if (stop) break;
            if (tick % 25 === 24 && outages < OUTAGES) {
              outages++;
              await proxy.restart(1_000);
            } else if (tick % 3 === 0) resets += proxy.cutAll();
          }
        })();
        try {
          const outs = await Promise.all(
            ledgers.map((ledger, i) =>
              runToEnd({
                saver: faulty,
                checker,
                ledger,
                threadId: `soak-${i}`,
                rounds: 20,
                workMs: 30,
                maxAttempts: 60,
              }),
            ),
          );
          stop = true;
          await chaos;
          const sum = (f: (o: (typeof outs)[number]) => number) => outs.reduce((n, o) => n + f(o), 0);
          console.log(
            `[reliability] soak faults ${kind}: ${THREADS} threads × 20 rounds through ${proxy.cuts} connection resets (${resets} random, the rest in ${OUTAGES} outages), ${proxy.refused} refused connections; ${sum((o) => o.failures.length)} runs failed and were continued — lost ${sum((o) => o.lost.length)}, duplicated ${sum((o) => o.duplicated.length)}, re-run after durable ${sum((o) => o.reruns.length)}, partial or forked ${sum((o) => o.problems.length)}`,
          );
          for (const out of outs)
            expect(out).toMatchObject({ lost: [], duplicated: [], unexpected: [], reruns: [], problems: [] });
          expect(proxy.cuts).toBeGreaterThan(0);
        } finally {
          stop = true;
          await chaos;
          for (const l of ledgers) l.close();
          await faulty.close?.();
          await checker.close?.();
          await proxy.close();
          await disposeTarget(target);
        }
      },
    );
  }
});
