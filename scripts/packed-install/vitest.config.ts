import { defineConfig } from "vitest/config";

/** `npm run test:packed`: the packed-install test alone (it builds, packs and installs; minutes, not seconds). */
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ["packed-install.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
