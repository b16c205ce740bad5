import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Prints the top frames of a V8 `.cpuprofile` by self time and by total (inclusive) time, with paths
 * shortened to the package: `node bench/dist/profile-summary.js file.cpuprofile [top]`.
 */
function main(): void {
  const [file, topText = "25"] = process.argv.slice(2);
  if (!file) throw new Error("usage: profile-summary <file.cpuprofile> [top]");
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const top = Number.parseInt(topText, 10);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfTime = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] as number;
    selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...selfTime.values()].reduce((a, b) => a + b, 0);
  const label = (n: ProfileNode) => {
    const url = n.callFrame.url.replace(/^file:\/\//, "");
    const short = url.replace(/.*\/(packages|node_modules|bench)\//, "$1/");
    return `${n.callFrame.functionName || "(anonymous)"} ${short ? `${short}:${n.callFrame.lineNumber + 1}` : ""}`.trim();
  };
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, time] of selfTime) {
    const node = byId.get(id) as ProfileNode;
    self.set(label(node), (self.get(label(node)) ?? 0) + time);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(byId.get(cur) as ProfileNode);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + time);
    }
  }
  const print = (title: string, map: Map<string, number>) => {
    console.log(`\n${title} (of ${(total / 1000).toFixed(0)} ms sampled)`);
    for (const [l, t] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${l}`);
    }
  };
  print("self time", self);
  print("total time", inclusive);
}

main();
