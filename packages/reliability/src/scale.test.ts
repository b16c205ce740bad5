import { describeScale } from "./fixtures/scale-suite.js";

// The small version, for every run of the test suite; `npm run test:soak` runs the full sizes.
await describeScale({
  label: "fast",
  threads: 200,
  depth: 10,
  samples: 100,
  stateMiB: 1,
  loopSteps: 1_000,
  streams: 50,
  reconnects: 2,
  streamSteps: 30,
  timeoutMs: 60_000,
  // the goals (250 and 1,000 ms) are the soak's; here, 4× them, a margin a loaded 2-core machine keeps
  p99Ms: { get: 1_000, list: 4_000 },
});
