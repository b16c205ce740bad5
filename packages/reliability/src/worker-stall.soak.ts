/**
 * The long runs of `worker-stall.int.test.ts` (`npm run test:soak`): the breakpoint kill point repeated
 * on every saver, SIGSTOP/SIGCONT of a worker at each point with stalls from 1.5 to 6 s, and a worker
 * paused in the middle of 80 runs on 40 threads. Every run prints its counts; docs/reliability.md
 * quotes them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  breakpointKill,
  coreBreakpointKill,
  openPlace,
  type StallPoint,
  stallScenario,
  stallUnderLoad,
} from "./fixtures/worker-stall.js";
import { requirePostgres, requireRedis } from "./harness/services.js";

const postgresUp = await requirePostgres();
const redisUp = await requireRedis();
const dir = mkdtempSync(join(tmpdir(), "trellis-stall-soak-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REPEAT = 5;
const POINTS: StallPoint[] = ["claim", "superstep", "final-write", "lease-answer", "write-answer"];
/** The points the embedded SQLite server is paused at (the answer points hold a Postgres commit). */
const SQLITE_POINTS: StallPoint[] = ["claim", "superstep", "final-write"];

describe("soak: recovery never executes past a pause", () => {
  for (const [kind, skip] of [
    ["sqlite", false],
    ["postgres", !postgresUp],
    ["redis", !redisUp],
  ] as const) {
    it.skipIf(skip)(`${kind}: ${REPEAT} kills at the breakpoint's checkpoint (runtime, recover)`, async () => {
      let kept = 0;
      for (let i = 0; i < REPEAT; i++) {
        const out = await coreBreakpointKill(kind, dir);
        expect(out).toMatchObject({
          killed: true,
          status: "interrupted",
          next: ["gather"],
          gatherStarts: 0,
          problems: [],
        });
        kept++;
      }
      console.log(
        `[reliability] soak breakpoint kill (runtime) ${kind}: ${kept}/${REPEAT} pauses kept, 0 nodes run past them`,
      );
    });
  }
  for (const [kind, skip] of [
    ["sqlite", false],
    ["postgres", !(postgresUp && redisUp)],
  ] as const) {
    it.skipIf(skip)(
      `${kind}: ${REPEAT} kills at 'breakpoint checkpoint written, run not yet marked' (server)`,
      async () => {
        for (let i = 0; i < REPEAT; i++) {
          const place = await openPlace(kind, dir);
          try {
            const out = await breakpointKill(place);
            expect(out).toMatchObject({
              killed: true,
              started: ["a"],
              next: ["b"],
              threadStatus: "interrupted",
              problems: [],
            });
            expect(out.run.status).toBe("success"); // ended at the breakpoint, as LangGraph reports a pause
          } finally {
            await place.dispose();
          }
        }
        console.log(
          `[reliability] soak breakpoint kill (server) ${kind}: ${REPEAT}/${REPEAT} runs ended paused (success, thread interrupted) on attempt 2, b never ran`,
        );
      },
    );
  }
});

describe.skipIf(!(postgresUp && redisUp))("soak: SIGSTOP/SIGCONT of a worker (postgres + redis)", () => {
  for (const point of POINTS) {
    it(`${point}: 3 stalls of 1.5–6 s`, async () => {
      const lines: string[] = [];
      for (const stallMs of [1_500, 3_500, 6_000]) {
        const place = await openPlace("postgres", dir);
        try {
          const out = await stallScenario(place, point, { stallMs, takeover: true });
          expect(out.run.status).toBe("success");
          expect(out.problems).toEqual([]);
          expect(out.startsAfterWake).toBe(0);
          expect(out.checkpointsAfterWake).toBe(0);
          expect(out.log.map((l) => l.split(":")[1])).toEqual(["a", "b", "c"]);
          expect(out.otherRunMs).toBeLessThan(3_000);
          lines.push(`${stallMs} ms: attempt ${out.run.attempt}, other thread ${out.otherRunMs} ms`);
        } finally {
          await place.dispose();
        }
      }
      console.log(`[reliability] soak SIGSTOP ${point}: ${lines.join("; ")}; 0 forks, 0 writes after waking`);
    });
  }

  it("a worker paused 5 s in the middle of 80 runs on 40 threads", async () => {
    const place = await openPlace("postgres", dir);
    try {
      const out = await stallUnderLoad(place, { threads: 40, stallMs: 5_000 });
      expect(out.succeeded).toBe(out.runs);
      expect(out.corrupted).toEqual([]);
      expect(out.staleStarts).toBe(0);
      console.log(
        `[reliability] soak SIGSTOP under load: ${out.runs} runs on 40 threads, ${out.takenOver} taken over from the paused worker, 0 threads corrupted, 0 finished runs re-run, ${out.ms} ms`,
      );
    } finally {
      await place.dispose();
    }
  });
});

describe("soak: SIGSTOP/SIGCONT of the embedded SQLite server", () => {
  for (const point of SQLITE_POINTS) {
    it(`${point}: 3 stalls of 1–3 s`, async () => {
      for (const stallMs of [1_000, 2_000, 3_000]) {
        const place = await openPlace("sqlite", dir);
        try {
          const out = await stallScenario(place, point, { stallMs, takeover: false, delayMs: 150 });
          expect(out.run).toMatchObject({ status: "success", attempt: 1 });
          expect(out.problems).toEqual([]);
          expect(out.log.map((l) => l.split(":")[1])).toEqual(["a", "b", "c"]);
        } finally {
          await place.dispose();
        }
      }
      console.log(`[reliability] soak SIGSTOP sqlite ${point}: 3 stalls, runs succeeded on attempt 1, 0 forks`);
    });
  }
});
