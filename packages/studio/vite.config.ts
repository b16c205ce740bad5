import { defaultClientConditions, defineConfig } from "vite";

/**
 * The studio is served by the Trellis server at /studio, so every asset URL starts there. During
 * `npm run dev -w @trellis/studio`, API calls are proxied to a server on 127.0.0.1:8123.
 */
export default defineConfig({
  base: "/studio/",
  // workspace packages (@trellis/protocol) are read from their TypeScript source, as in the tests
  resolve: { conditions: ["@trellis/source", ...defaultClientConditions] },
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 800 },
  server: {
    proxy: Object.fromEntries(
      ["/assistants", "/threads", "/runs", "/info", "/ok", "/apps"].map((p) => [p, "http://127.0.0.1:8123"]),
    ),
  },
});
