import { describe, expect, it } from "vitest";
import { sdkServer, TEST_GRAPHS } from "./harness.js";

/** One sample of a Prometheus text exposition. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * A strict parser of Prometheus' text format 0.0.4: every sample belongs to a family declared by
 * `# HELP` then `# TYPE` before it, names and labels are well formed, no series repeats, and each
 * histogram's buckets are cumulative, end with `le="+Inf"` equal to `_count`, and come with `_sum`.
 */
function parsePrometheus(text: string): { types: Map<string, string>; samples: Sample[] } {
  expect(text.endsWith("\n")).toBe(true);
  const types = new Map<string, string>();
  const helped = new Set<string>();
  const samples: Sample[] = [];
  const seen = new Set<string>();
  const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  for (const line of text.slice(0, -1).split("\n")) {
    const help = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line);
    if (help) {
      expect(helped.has(help[1] as string), `HELP twice for ${help[1]}`).toBe(false);
      helped.add(help[1] as string);
      continue;
    }
    const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (type) {
      expect(types.has(type[1] as string), `TYPE twice for ${type[1]}`).toBe(false);
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    const m = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`).exec(line);
    if (!m) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const [, name, rawLabels, rawValue] = m as unknown as [string, string, string | undefined, string];
    const labels: Record<string, string> = {};
    let rest = rawLabels ?? "";
    while (rest.length > 0) {
      const l = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/.exec(rest);
      if (!l) throw new Error(`bad labels in ${JSON.stringify(line)}`);
      const [whole, key, value] = l as unknown as [string, string, string];
      expect(labels, `label ${key} twice`).not.toHaveProperty(key);
      labels[key] = value.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
      rest = rest.slice(whole.length);
    }
    const value = rawValue === "+Inf" ? Number.POSITIVE_INFINITY : Number(rawValue);
    if (Number.isNaN(value) && rawValue !== "NaN") throw new Error(`bad value in ${JSON.stringify(line)}`);
    const family = [...types.keys()].find(
      (f) => name === f || (types.get(f) === "histogram" && [`${f}_bucket`, `${f}_sum`, `${f}_count`].includes(name)),
    );
    if (!family) throw new Error(`sample ${name} has no # TYPE before it`);
    expect(helped.has(family), `no # HELP for ${family}`).toBe(true);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    expect(seen.has(key), `series twice: ${line}`).toBe(false);
    seen.add(key);
    samples.push({ name, labels, value });
  }
  for (const [family, type] of types) {
    if (type !== "histogram") continue;
    const series = new Map<string, Sample[]>();
    for (const s of samples.filter((x) => x.name === `${family}_bucket`)) {
      const { le: _le, ...rest } = s.labels;
      const k = JSON.stringify(Object.entries(rest).sort());
      series.set(k, [...(series.get(k) ?? []), s]);
    }
    for (const [k, buckets] of series) {
      const les = buckets.map((b) => (b.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(b.labels.le)));
      expect(les).toEqual([...les].sort((a, b) => a - b));
      expect(les.at(-1)).toBe(Number.POSITIVE_INFINITY);
      const counts = buckets.map((b) => b.value);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
      const same = (s: Sample) => JSON.stringify(Object.entries(s.labels).sort()) === k;
      const count = samples.find((s) => s.name === `${family}_count` && same(s));
      expect(count?.value).toBe(counts.at(-1));
      expect(samples.some((s) => s.name === `${family}_sum` && same(s))).toBe(true);
    }
  }
  return { types, samples };
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

const s = sdkServer({
  graphs: { ...TEST_GRAPHS, usage: { module: "./src/test/fixture-usage.ts", graph: "usageGraph" } },
});

async function scrape(): Promise<{ types: Map<string, string>; samples: Sample[] }> {
  const res = await fetch(`${s.t.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parsePrometheus(await res.text());
}

describe("GET /metrics", () => {
  it("serves every metric in Prometheus' text format, typed and described, before any run", async () => {
    const { types, samples } = await scrape();
    expect(Object.fromEntries(types)).toEqual({
      trellis_runs_total: "counter",
      trellis_run_duration_seconds: "histogram",
      trellis_run_queue_wait_seconds: "histogram",
      trellis_run_errors_total: "counter",
      trellis_run_attempts_lost_total: "counter",
      trellis_queue_depth: "gauge",
      trellis_runs_running: "gauge",
      trellis_active_runs: "gauge",
      trellis_stream_subscribers: "gauge",
      trellis_model_tokens_total: "counter",
      trellis_model_calls_total: "counter",
    });
    expect(value(samples, "trellis_queue_depth")).toBe(0);
    expect(value(samples, "trellis_active_runs")).toBe(0);
  });

  it("counts runs by status, their latency and queue wait, errors by code, tokens by model, and live followers", async () => {
    const before = (await scrape()).samples;
    const thread = await s.client.threads.create();
    const ok = await s.client.runs.create(thread.thread_id, "usage", { input: {} });
    await s.client.runs.join(thread.thread_id, ok.run_id);
    const failing = await s.client.runs.create(thread.thread_id, "usage", { input: { fail: true } });
    await s.client.runs.join(thread.thread_id, failing.run_id);

    // a slow run with a live SSE follower, scraped while both are in flight
    const slowThread = await s.client.threads.create();
    const slow = await s.client.runs.create(slowThread.thread_id, "slow", { input: { delayMs: 400 } });
    const stream = await fetch(`${s.t.url}/threads/${slowThread.thread_id}/runs/${slow.run_id}/stream`);
    const reader = stream.body?.getReader();
    await reader?.read(); // the stream is open
    const during = (await scrape()).samples;
    expect(value(during, "trellis_stream_subscribers")).toBeGreaterThanOrEqual(1);
    expect(value(during, "trellis_active_runs")).toBe(1);
    expect(value(during, "trellis_runs_running")).toBe(1);
    await reader?.cancel();
    await s.client.runs.join(slowThread.thread_id, slow.run_id);

    const after = (await scrape()).samples;
    const grew = (name: string, labels: Record<string, string>) =>
      (value(after, name, labels) ?? 0) - (value(before, name, labels) ?? 0);
    expect(grew("trellis_runs_total", { status: "success" })).toBe(2);
    expect(grew("trellis_runs_total", { status: "error" })).toBe(1);
    expect(grew("trellis_run_errors_total", { code: "INVALID_ARGUMENT" })).toBe(1);
    expect(grew("trellis_run_duration_seconds_count", { status: "success" })).toBe(2);
    expect(grew("trellis_run_queue_wait_seconds_count", {})).toBe(3);
    expect(grew("trellis_model_tokens_total", { model: "acme:m1", type: "input" })).toBe(2 * 3_000);
    expect(grew("trellis_model_tokens_total", { model: "acme:m2", type: "output" })).toBe(2 * 50);
    expect(grew("trellis_model_calls_total", { model: "acme:m1" })).toBe(4);
    expect(value(after, "trellis_active_runs")).toBe(0);
    expect(value(after, "trellis_queue_depth")).toBe(0);
  });
});

describe("GET /metrics with the server's auth on", () => {
  const guarded = sdkServer({ auth: { enabled: true, credentials: [{ user: "ops", apiKey: "key-ops" }] } });
  it("answers 401 without credentials and the metrics with them", async () => {
    expect((await fetch(`${guarded.t.url}/metrics`)).status).toBe(401);
    const res = await fetch(`${guarded.t.url}/metrics`, { headers: { "x-api-key": "key-ops" } });
    expect(res.status).toBe(200);
    expect(parsePrometheus(await res.text()).types.size).toBe(11);
  });
});

describe("the text format", () => {
  it("escapes label values (backslash, quote, newline) so a model id cannot break a line", async () => {
    const { Counter, Registry } = await import("../operations/prometheus-text.js");
    const registry = new Registry();
    const c = registry.add(new Counter("t_total", "A help text\nwith a newline."));
    c.inc({ model: 'a"b\\c\nd' }, 2);
    const { samples } = parsePrometheus(registry.render());
    expect(samples).toEqual([{ name: "t_total", labels: { model: 'a"b\\c\nd' }, value: 2 }]);
  });
});
