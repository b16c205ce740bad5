import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { currentHolder, isLocalHolderDead, processLeaseOwner } from "./holder.js";
import { type LeaseHolder, leaseOwnerOf, nextLease, parseLeaseOwner } from "./lease.js";
import { startLeaseExecution } from "./lease-executions.js";

const holder: LeaseHolder = { host: "web-1", scope: "boot/4026531836", pid: 4242, start: "1834512" };
const linux = process.platform === "linux" && currentHolder().start !== "";

describe("lease owners name their holder", () => {
  it("round-trips names and holders, whatever characters they hold", () => {
    for (const name of ["run-1", "", "a|holder=b,c,1,2", "x,y|z", "ünïcode ✓"]) {
      for (const h of [holder, { host: "a,b|holder=c", scope: "", pid: 1, start: "" }]) {
        expect(parseLeaseOwner(leaseOwnerOf(name, h))).toEqual({ name, holder: h });
      }
    }
  });

  it("a plain or malformed owner has no holder", () => {
    for (const owner of [
      "w1",
      "run|holder=",
      "run|holder=a,b,c,d",
      "run|holder=a,b,0,d",
      "run|holder=a,b,1",
      "r|holder=%E0%A4%A,b,1,2",
    ]) {
      expect(parseLeaseOwner(owner)).toEqual({ name: owner, holder: undefined });
    }
  });

  it("processLeaseOwner names this process", () => {
    expect(parseLeaseOwner(processLeaseOwner("job-7"))).toEqual({ name: "job-7", holder: currentHolder() });
  });
});

describe("nextLease with a holder check", () => {
  const now = 1_000;
  const live = { threadId: "t", owner: leaseOwnerOf("old", holder), epoch: 4, expiresAt: now + 30_000 };

  it("a live lease whose holder is provably dead passes to the next owner with a higher epoch", () => {
    const isHolderDead = vi.fn(() => true);
    const lease = nextLease(live, { threadId: "t", owner: "new", ttlMs: 10, now, isHolderDead });
    expect(lease).toEqual({ threadId: "t", owner: "new", epoch: 5, expiresAt: now + 10 });
    expect(isHolderDead).toHaveBeenCalledWith(holder, live.owner);
  });

  it("a live holder, a check that throws, no check, or a plain owner keep the thread busy", () => {
    const request = { threadId: "t", owner: "new", ttlMs: 10, now };
    expect(() => nextLease(live, { ...request, isHolderDead: () => false })).toThrow(/pid 4242 on web-1/);
    expect(() =>
      nextLease(live, {
        ...request,
        isHolderDead: () => {
          throw new Error("cannot tell");
        },
      }),
    ).toThrow(/busy/);
    expect(() => nextLease(live, request)).toThrow(/busy/);
    expect(() => nextLease({ ...live, owner: "plain" }, { ...request, isHolderDead: () => true })).toThrow(/busy/);
  });

  it("the check is not asked when the TTL or the owner already decide", () => {
    const isHolderDead = vi.fn(() => true);
    expect(
      nextLease({ ...live, expiresAt: now }, { threadId: "t", owner: "new", ttlMs: 10, now, isHolderDead }).epoch,
    ).toBe(5);
    expect(nextLease(live, { threadId: "t", owner: live.owner, ttlMs: 10, now, isHolderDead }).epoch).toBe(4);
    expect(isHolderDead).not.toHaveBeenCalled();
  });
});

describe("isLocalHolderDead", () => {
  it("never judges a holder of another host or of an unknown or other scope", () => {
    const me = currentHolder();
    expect(isLocalHolderDead({ ...me, host: `${me.host}-other`, pid: 2 ** 30 })).toBe(false);
    expect(isLocalHolderDead({ ...me, scope: "", pid: 2 ** 30 })).toBe(false);
    expect(isLocalHolderDead({ ...me, scope: `${me.scope}x`, pid: 2 ** 30 })).toBe(false);
    expect(isLocalHolderDead(me)).toBe(false);
  });

  it("an execution of this process that ended with its lease still stored is dead; others of it are not", () => {
    const ended = processLeaseOwner(`ended-${Math.random()}`);
    const running = processLeaseOwner(`running-${Math.random()}`);
    startLeaseExecution(ended)();
    startLeaseExecution(running);
    expect(isLocalHolderDead(currentHolder(), ended)).toBe(true);
    expect(isLocalHolderDead(currentHolder(), running)).toBe(false);
    expect(isLocalHolderDead(currentHolder())).toBe(false);
    // Through the rule: another execution of this process takes the ended one's lease at once.
    const lease = { threadId: "t", owner: ended, epoch: 1, expiresAt: 60_000 };
    const request = { threadId: "t", owner: running, ttlMs: 10, now: 0, isHolderDead: isLocalHolderDead };
    expect(nextLease(lease, request).epoch).toBe(2);
    expect(() => nextLease({ ...lease, owner: running }, { ...request, owner: "x" })).toThrow(/busy/);
  });

  it.skipIf(!linux)("a process of this host: alive, then SIGKILLed; a pid reused by a later process", async () => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    await new Promise((resolve) => child.once("spawn", resolve));
    const pid = child.pid as number;
    const theirs = { ...currentHolder(), pid, start: startOf(pid) };
    expect(isLocalHolderDead(theirs)).toBe(false);
    // Its pid reused: a process with that pid but another start time is not the holder.
    expect(isLocalHolderDead({ ...theirs, start: String(Number(theirs.start) - 1) })).toBe(true);
    expect(isLocalHolderDead({ ...currentHolder(), pid: process.ppid, start: "1" })).toBe(true);
    expect(isLocalHolderDead({ ...currentHolder(), start: "1" })).toBe(true); // this pid's previous incarnation
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(isLocalHolderDead(theirs)).toBe(true);
  });

  it.skipIf(!linux)("a holder that exited but was not reaped yet (a zombie) is dead", async () => {
    // sh starts `sleep 0` in the background, then becomes `sleep 5`, which never reaps it.
    const sh = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 5"], { stdio: ["ignore", "pipe", "ignore"] });
    const pid = Number(await new Promise<string>((resolve) => sh.stdout?.once("data", (d) => resolve(String(d)))));
    const stat = () => readFileSync(`/proc/${pid}/stat`, "latin1");
    const start = startOf(pid);
    for (let i = 0; i < 100 && !/\) Z /.test(stat()); i++) await new Promise((r) => setTimeout(r, 20));
    expect(stat()).toMatch(/\) Z /);
    expect(isLocalHolderDead({ ...currentHolder(), pid, start })).toBe(true);
    sh.kill("SIGKILL");
  });
});

function startOf(pid: number): string {
  const text = readFileSync(`/proc/${pid}/stat`, "latin1");
  return text.slice(text.lastIndexOf(")") + 2).split(" ")[19] as string;
}
