/**
 * The server's executor in real processes: a worker SIGKILLed at "breakpoint checkpoint written, run not
 * yet marked finished" (recovery keeps the pause), and a worker SIGSTOPped in the middle of a claim,
 * of a superstep and of its final status write — on Postgres + Redis with a second worker taking over
 * (the paused one is fenced and writes nothing when it wakes; nobody else waits for it), and on the
 * embedded SQLite queue (the run simply goes on). The soak repeats these (`worker-stall.soak.ts`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  breakpointKill,
  coreBreakpointKill,
  openPlace,
  pickupAfterKill,
  type StallPoint,
  stallScenario,
} from "./fixtures/worker-stall.js";
import { requirePostgres, requireRedis } from "./harness/services.js";

const redisUp = await requireRedis();
const postgresUp = await requirePostgres();

const postgres = postgresUp && redisUp;
const dir = mkdtempSync(join(tmpdir(), "trellis-stall-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KINDS = [
  { kind: "sqlite" as const, skip: false },
  { kind: "postgres" as const, skip: !postgres },
];

describe("recovery never executes past a pause", () => {
  for (const { kind, skip } of KINDS) {
    it.skipIf(skip)(
      `${kind}: killed with the breakpoint checkpoint written, the run not yet marked`,
      async () => {
        const place = await openPlace(kind, dir);
        try {
          const out = await breakpointKill(place);
          expect(out.killed).toBe(true);
          expect(out.run.status).toBe("success"); // ended at the breakpoint, as LangGraph reports a pause
          expect(out.run.attempt).toBe(2);
          expect(out.started).toEqual(["a"]); // b, behind the breakpoint, never ran
          expect(out.next).toEqual(["b"]);
          expect(out.threadStatus).toBe("interrupted");
          expect(out.problems).toEqual([]);
          console.log(
            `[reliability] breakpoint kill ${kind}: attempt 2 ended ${out.run.status}, nodes run ${out.started.join(",")}, next ${out.next.join(",")}`,
          );
        } finally {
          await place.dispose();
        }
      },
      60_000,
    );
  }
});

describe("the runtime's recover keeps a breakpoint on every saver", () => {
  for (const [kind, skip] of [
    ["sqlite", false],
    ["postgres", !postgresUp],
    ["redis", !redisUp],
  ] as const) {
    it.skipIf(skip)(
      `${kind}: killed after the breakpoint's checkpoint was stored, continued with recover`,
      async () => {
        const out = await coreBreakpointKill(kind, dir);
        expect(out.killed).toBe(true);
        expect(out.status).toBe("interrupted");
        expect(out.next).toEqual(["gather"]);
        expect(out.gatherStarts).toBe(0);
        expect(out.problems).toEqual([]);
      },
      60_000,
    );
  }
});

// lease-answer too in the soak (worker-stall.soak.ts)
const POINTS: StallPoint[] = ["claim", "superstep", "final-write", "write-answer"];
const WHERE: Record<StallPoint, string> = {
  claim: "in the middle of a claim",
  superstep: "in the middle of a superstep",
  "final-write": "in the middle of its final status write",
  "lease-answer": "with its thread's lease taken, the answer read only after the takeover",
  "write-answer": "with a checkpoint write sent, its answer read only after the takeover",
};

describe.skipIf(!postgres)("postgres + redis: a worker paused with SIGSTOP is fenced and stalls nobody", () => {
  for (const point of POINTS) {
    it(WHERE[point], async () => {
      const place = await openPlace("postgres", dir);
      try {
        const out = await stallScenario(place, point, { stallMs: 2_000, takeover: true });
        expect(out.run.status).toBe("success");
        expect(out.takenOver).toBe(true);
        expect(out.threadStatus).toBe("idle");
        expect(out.problems).toEqual([]);
        expect(out.log.map((l) => l.split(":")[1])).toEqual(["a", "b", "c"]);
        expect(out.startsAfterWake).toBe(0);
        expect(out.checkpointsAfterWake).toBe(0);
        expect(out.wokeLog.some((e) => e === "fenced" || e === "lease-lost")).toBe(true);
        // an operator finds the thread from every line about the lost attempt
        expect(out.wokeThreads.length).toBeGreaterThan(0);
        expect(out.wokeThreads.every((t) => t === out.threadId)).toBe(true);
        // a run of another thread was claimed and finished while the paused worker held its claim (not
        // blocked by it: the scenario gives it 10 s; the time is logged, the bound a loaded machine keeps)
        expect(out.otherRunMs).toBeLessThan(8_000);
        console.log(
          `[reliability] SIGSTOP ${point} (postgres+redis, ${out.stallMs} ms): run ${out.run.status} on attempt ${out.run.attempt}; other thread's run done in ${out.otherRunMs} ms; woken worker logged ${out.wokeLog.join(",")}; 0 forks, 0 writes after waking`,
        );
      } finally {
        await place.dispose();
      }
    }, 60_000);
  }
});

describe.skipIf(!postgres)("postgres + redis: a killed worker's run is picked up within 5 s (defaults)", () => {
  it("heartbeat 1 s, orphanAfter 4 s", async () => {
    const place = await openPlace("postgres", dir);
    try {
      const out = await pickupAfterKill(place);
      expect(out.run.status).toBe("success");
      expect(out.run.attempt).toBe(2);
      expect(out.problems).toEqual([]);
      // the goal is within 5 s (orphanAfter 4 s; logged below); the bound tells a pickup from a run left
      // behind, with a margin a loaded 2-core machine keeps (4,669 ms was seen under load, and more
      // than 15 s at a load of 20 on 2 cores)
      expect(out.claimMs).toBeLessThan(20_000);
      console.log(
        `[reliability] pickup after SIGKILL (defaults): claimed by the other worker after ${out.claimMs} ms, run done after ${out.doneMs} ms`,
      );
    } finally {
      await place.dispose();
    }
  }, 60_000);
});

describe("embedded sqlite queue: a server paused with SIGSTOP goes on when continued", () => {
  // the claim and the final write too in the soak (worker-stall.soak.ts)
  for (const point of ["superstep"] as const) {
    it(`in the middle of ${point}`, async () => {
      const place = await openPlace("sqlite", dir);
      try {
        const out = await stallScenario(place, point, { stallMs: 800, takeover: false, delayMs: 150 });
        expect(out.run.status).toBe("success");
        expect(out.run.attempt).toBe(1);
        expect(out.threadStatus).toBe("idle");
        expect(out.problems).toEqual([]);
        expect(out.log.map((l) => l.split(":")[1])).toEqual(["a", "b", "c"]);
      } finally {
        await place.dispose();
      }
    }, 60_000);
  }
});
