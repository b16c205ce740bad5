import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints one plain closing line after a test run — `tests: N passed, N failed, N skipped` — so CI and
 * scripts can read the outcome without parsing Vitest's colored summary.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      if (module.state() === "failed" && ![...module.children.allTests()].length) failed++;
    }
    failed += unhandledErrors.length;
    console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
