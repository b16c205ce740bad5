import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["@trellis/source"] },
  ssr: { resolve: { conditions: ["@trellis/source"] } },
  test: {
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
    reporters: ["default", "./scripts/summary-reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
