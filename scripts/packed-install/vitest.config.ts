import { defineConfig } from "vitest/config";

/**
 * The packed-install test (it builds, packs and installs; minutes, not seconds): `npm run test:packed`
 * runs it alone, and `npm test` runs it as the `packed` project beside the others (vitest.config.ts).
 */
export default defineConfig({
  test: {
    name: "packed",
    root: import.meta.dirname,
    include: ["packed-install.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
