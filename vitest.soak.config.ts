import { defineConfig } from "vitest/config";

/**
 * `npm run test:soak`: the long reliability runs of packages/reliability (`*.soak.ts`), plus its
 * fuzzers with 2,000 cases each. One file at a time, so the latencies it reports are not skewed by
 * the others.
 */
export default defineConfig({
  resolve: { conditions: ["@trellis/source"] },
  ssr: { resolve: { conditions: ["@trellis/source"] } },
  test: {
    include: [
      "packages/reliability/src/**/*.soak.ts",
      "packages/reliability/src/resume-fuzz.test.ts",
      "packages/reliability/src/graph-fuzz.test.ts",
    ],
    env: { TRELLIS_FUZZ_RUNS: "2000" },
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
