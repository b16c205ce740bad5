import { createHash } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { hostname, networkInterfaces } from "node:os";
import { type LeaseHolder, leaseOwnerOf } from "./lease.js";
import { hasLeaseExecutionEnded } from "./lease-executions.js";

let self: LeaseHolder | undefined;

/**
 * This process as a lease holder: host name, scope (Linux: boot id and pid namespace; elsewhere the
 * machine's network addresses), pid and start time. Read once per process.
 *
 * @example
 * const { host, pid } = currentHolder();
 */
export function currentHolder(): LeaseHolder {
  if (self?.pid === process.pid) return self;
  self = { host: hostname(), scope: localScope(), pid: process.pid, start: procStat(process.pid)?.start ?? "" };
  return self;
}

/**
 * The lease owner for `name` held by this process (see {@link leaseOwnerOf}): a lease it takes is free
 * at once, for any process of this host, as soon as this process is dead.
 *
 * @example
 * const lease = await saver.acquireLease(threadId, processLeaseOwner(`job-${jobId}`), 30_000);
 */
export function processLeaseOwner(name: string): string {
  const holder = currentHolder();
  if (ownerSuffix?.holder !== holder) ownerSuffix = { holder, text: leaseOwnerOf("", holder) };
  return `${name}${ownerSuffix.text}`;
}

let ownerSuffix: { holder: LeaseHolder; text: string } | undefined;

/**
 * The default {@link HolderCheck} of every saver: true when `holder` is a process of this host (same
 * host name and scope) that is provably gone — its pid no longer exists, is a zombie, or belongs to a
 * process that started at another time (a reused pid) — or is this process and `owner` an execution
 * of it that ended and none under that owner runs (`startLeaseExecution`). A running execution of this
 * process is never dead, however long it stalls. Reads `/proc/<pid>/stat` on Linux, with
 * `process.kill(pid, 0)` as the fallback. A holder of another host, or of an unknown scope, is never
 * judged: its lease's TTL rules.
 *
 * @example
 * new SqliteSaver({ filename, isHolderDead: isLocalHolderDead }); // the default
 */
export function isLocalHolderDead(holder: LeaseHolder, owner?: string): boolean {
  const me = currentHolder();
  if (holder.host !== me.host || holder.scope === "" || holder.scope !== me.scope) return false;
  if (!Number.isSafeInteger(holder.pid) || holder.pid <= 0) return false;
  if (holder.pid === me.pid) {
    if (holder.start !== "" && me.start !== "" && holder.start !== me.start) return true; // an earlier process
    return holder.start === me.start && owner !== undefined && hasLeaseExecutionEnded(owner);
  }
  const stat = procStat(holder.pid);
  if (stat) {
    if (stat.state === "Z" || stat.state === "X") return true; // exited, not yet reaped
    return holder.start !== "" && stat.start !== holder.start;
  }
  // No /proc (not Linux, or hidden): only the pid's existence can be checked.
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** State and start time (clock ticks since boot) of a process, from `/proc/<pid>/stat`. */
function procStat(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const start = fields[19]; // field 22 of the whole line
  if (!state || !start || !/^\d+$/.test(start)) return undefined;
  return { state, start };
}

function localScope(): string {
  if (process.platform === "linux") {
    // Without both, containers sharing a host name could not be told apart: then nothing is judged.
    try {
      const boot = readFileSync("/proc/sys/kernel/random/boot_id", "latin1").trim();
      const ns = /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1];
      return boot && ns ? `${boot}/${ns}` : "";
    } catch {
      return "";
    }
  }
  const macs = Object.values(networkInterfaces())
    .flat()
    .filter((i) => i && !i.internal && i.mac !== "00:00:00:00:00:00")
    .map((i) => i?.mac as string);
  if (macs.length === 0) return "";
  const digest = createHash("sha1")
    .update([...new Set(macs)].sort().join(","))
    .digest("hex");
  return `mac-${digest.slice(0, 16)}`;
}
