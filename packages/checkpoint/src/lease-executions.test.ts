import { describe, expect, it } from "vitest";
import { hasLeaseExecutionEnded, startLeaseExecution } from "./lease-executions.js";

describe("lease executions of this process", () => {
  it("an execution that ended with its lease still stored is remembered; one whose release answered is not", () => {
    const failed = `exec-failed-${Math.random()}`;
    const end = startLeaseExecution(failed);
    expect(hasLeaseExecutionEnded(failed)).toBe(false); // running: never judged
    end();
    expect(hasLeaseExecutionEnded(failed)).toBe(true);

    const clean = `exec-clean-${Math.random()}`;
    const endClean = startLeaseExecution(clean);
    endClean(false);
    // nothing left to free, so nothing kept per run (a server's 10,000 runs keep no memory here)
    expect(hasLeaseExecutionEnded(clean)).toBe(false);
    // a renewal that landed after the release stored the lease again: remembered from then on
    endClean(true);
    expect(hasLeaseExecutionEnded(clean)).toBe(true);
  });

  it("an owner shared by two executions stays running until both end", () => {
    const owner = `exec-shared-${Math.random()}`;
    const a = startLeaseExecution(owner);
    const b = startLeaseExecution(owner);
    a();
    expect(hasLeaseExecutionEnded(owner)).toBe(false);
    a(); // ending twice counts once
    expect(hasLeaseExecutionEnded(owner)).toBe(false);
    b();
    expect(hasLeaseExecutionEnded(owner)).toBe(true);
  });
});
