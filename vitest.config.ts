import { defineConfig } from "vitest/config";

/**
 * `npm test`'s test run, in four projects that run side by side (3 files at a time: most files wait
 * on servers, child processes and databases, so a 2-core machine has room for more than one):
 *
 * - `unit`: the in-process packages (core, checkpoint, models, agents…). Their files leave no global
 *   state behind, so they share one module graph per worker (`isolate: false`) instead of importing
 *   the sources again for every file — most of what these files cost. A file that measures the whole
 *   process (async hooks, heap, AbortControllers made) is in {@link ALONE} and runs in the `alone` project, a fresh worker
 *   of its own: in a shared one, what earlier files left running would count.
 * - `process`: the servers, the CLI, the apps, the reliability scenarios, the studio's browser tests:
 *   files that stub the environment, start servers or spawn processes get a fresh worker each.
 * - `alone`: the files of {@link ALONE}, each in a fresh worker.
 * - `packed`: the packed-install test (its own config; `npm run test:packed` runs it alone).
 *
 * `npm run test:unit` runs all but `packed`.
 */
/** Files of the `unit` packages that need a process of their own (they count what the process does). */
const ALONE = [
  "packages/core/src/runtime/sync-step.test.ts",
  "packages/core/src/runtime/run-signal.test.ts",
  "packages/core/src/runtime/wide-step.test.ts",
];

const sources = {
  resolve: { conditions: ["@trellis/source"] },
  ssr: { resolve: { conditions: ["@trellis/source"] } },
};

export default defineConfig({
  ...sources,
  test: {
    reporters: ["default", "./scripts/summary-reporter.ts"],
    maxWorkers: 3,
    projects: [
      {
        ...sources,
        test: {
          name: "unit",
          isolate: false,
          include: [
            "packages/{core,checkpoint,common,protocol,langgraph,models,agents,checkpoint-sqlite}/src/**/*.test.ts",
          ],
          exclude: ["**/node_modules/**", ...ALONE],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        ...sources,
        test: {
          name: "process",
          include: [
            "packages/*/src/**/*.test.ts",
            "packages/studio/e2e/**/*.test.ts",
            "apps/*/src/**/*.test.ts",
            "apps/*/test/**/*.test.ts",
            "bench/src/**/*.test.ts",
            "packages/create-trellis/test/**/*.test.ts",
            "scripts/docs-samples/*.test.ts",
            "scripts/layering/*.test.ts",
          ],
          exclude: [
            "**/node_modules/**",
            "packages/{core,checkpoint,common,protocol,langgraph,models,agents,checkpoint-sqlite}/src/**",
          ],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      { ...sources, test: { name: "alone", include: ALONE, testTimeout: 30_000, hookTimeout: 30_000 } },
      "scripts/packed-install/vitest.config.ts",
    ],
  },
});
