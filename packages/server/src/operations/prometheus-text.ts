/**
 * A small registry of counters, gauges and histograms rendered in Prometheus' text exposition format
 * (version 0.0.4): what `GET /metrics` serves. Hand-written to keep the server free of a metrics
 * dependency; `prometheus-text.test.ts` parses its output with a strict parser.
 */

/** Label names to values. */
export type Labels = Readonly<Record<string, string>>;

interface Family {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  lines(): string[];
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function escapeHelp(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function labelText(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (extra) pairs.push(extra);
  if (pairs.length === 0) return "";
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`;
}

function keyOf(labels: Labels): string {
  return labelText(labels);
}

function num(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  if (Number.isNaN(value)) return "NaN";
  return String(value);
}

/** A monotonically increasing count per label set. */
export class Counter implements Family {
  readonly type = "counter" as const;
  readonly #values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    if (!(by >= 0)) return;
    const key = keyOf(labels);
    const entry = this.#values.get(key);
    if (entry) entry.value += by;
    else this.#values.set(key, { labels, value: by });
  }

  lines(): string[] {
    return [...this.#values.values()].map((e) => `${this.name}${labelText(e.labels)} ${num(e.value)}`);
  }
}

/** A value read when the metrics are scraped. */
export class Gauge implements Family {
  readonly type = "gauge" as const;
  #values: Array<{ labels: Labels; value: number }> = [];
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  set(values: Array<{ labels?: Labels; value: number }>): void {
    this.#values = values.map((v) => ({ labels: v.labels ?? {}, value: v.value }));
  }

  lines(): string[] {
    return this.#values.map((e) => `${this.name}${labelText(e.labels)} ${num(e.value)}`);
  }
}

/** Observations counted into cumulative buckets, with their sum and count, per label set. */
export class Histogram implements Family {
  readonly type = "histogram" as const;
  readonly #series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {}

  observe(value: number, labels: Labels = {}): void {
    if (!Number.isFinite(value)) return;
    const key = keyOf(labels);
    let s = this.#series.get(key);
    if (!s) {
      s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, s);
    }
    for (let i = 0; i < this.buckets.length; i++)
      if (value <= (this.buckets[i] as number)) s.counts[i] = (s.counts[i] ?? 0) + 1;
    s.sum += value;
    s.count++;
  }

  lines(): string[] {
    const out: string[] = [];
    for (const s of this.#series.values()) {
      this.buckets.forEach((le, i) => {
        out.push(`${this.name}_bucket${labelText(s.labels, ["le", num(le)])} ${s.counts[i]}`);
      });
      out.push(`${this.name}_bucket${labelText(s.labels, ["le", "+Inf"])} ${s.count}`);
      out.push(`${this.name}_sum${labelText(s.labels)} ${num(s.sum)}`);
      out.push(`${this.name}_count${labelText(s.labels)} ${s.count}`);
    }
    return out;
  }
}

/** The families of one exposition, rendered in the order they were added. */
export class Registry {
  readonly #families: Family[] = [];

  add<F extends Family>(family: F): F {
    this.#families.push(family);
    return family;
  }

  /** The text format: `# HELP`, `# TYPE`, then the samples of each family. */
  render(): string {
    const out: string[] = [];
    for (const f of this.#families) {
      out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`, ...f.lines());
    }
    return `${out.join("\n")}\n`;
  }
}
