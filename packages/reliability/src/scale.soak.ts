import { describeScale } from "./fixtures/scale-suite.js";

// The sizes of issue 14: 10,000 threads × 10 checkpoints, a 1 MiB state, a 1,000-step loop, 500 SSE streams.
await describeScale({
  label: "soak",
  threads: 10_000,
  depth: 10,
  samples: 1_000,
  stateMiB: 1,
  loopSteps: 1_000,
  streams: 500,
  reconnects: 3,
  streamSteps: 60,
  timeoutMs: 600_000,
  p99Ms: { get: 250, list: 1_000 },
});
