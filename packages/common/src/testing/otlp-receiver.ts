import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as an OTLP/HTTP JSON export carries it, with its attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  links: Array<{ traceId: string; spanId: string; attributes: Record<string, unknown> }>;
  status: { code: number; message?: string };
  service: string | undefined;
}

/** A running {@link startOtlpReceiver}: where to send traces, what arrived, and how to stop it. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>/v1/traces`: the exporter's `url`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`. */
  url: string;
  /** Every span decoded so far, in arrival order. */
  spans: ReceivedSpan[];
  /** Stops listening. */
  close(): Promise<void>;
}

/**
 * A loopback OTLP/HTTP receiver for tests: accepts `POST /v1/traces` in OTLP's JSON encoding (what
 * `@opentelemetry/exporter-trace-otlp-http` sends) and keeps every span it decodes, so a test can assert
 * the span tree a run produced — in this process or in a child process pointed at `url`. Anything else
 * (another path, protobuf, a body that is not an OTLP JSON export) gets a 4xx and is not kept.
 *
 * @example
 * const receiver = await startOtlpReceiver();
 * const exporter = new OTLPTraceExporter({ url: receiver.url });
 * // ... run a graph with a tracer provider exporting through `exporter`, then flush it ...
 * expect(receiver.spans.map((s) => s.name)).toContain("run my-graph");
 * await receiver.close();
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url !== "/v1/traces" || !String(req.headers["content-type"]).includes("json")) {
        res.writeHead(415).end();
        return;
      }
      const decoded: ReceivedSpan[] = [];
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport;
        for (const rs of body.resourceSpans ?? []) {
          const service = attributesOf(rs.resource?.attributes)["service.name"] as string | undefined;
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              decoded.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? "",
                name: s.name,
                kind: s.kind,
                attributes: attributesOf(s.attributes),
                events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attributesOf(e.attributes) })),
                links: (s.links ?? []).map((l) => ({
                  traceId: l.traceId,
                  spanId: l.spanId,
                  attributes: attributesOf(l.attributes),
                })),
                status: s.status ?? { code: 0 },
                service,
              });
            }
          }
        }
      } catch {
        // not an OTLP JSON export (bad JSON, or a field of the wrong shape): refuse it, keep nothing
        res.writeHead(400).end();
        return;
      }
      spans.push(...decoded);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
type OtlpAttributes = Array<{ key: string; value: OtlpValue }> | undefined;
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttributes };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttributes;
        events?: Array<{ name: string; attributes?: OtlpAttributes }>;
        links?: Array<{ traceId: string; spanId: string; attributes?: OtlpAttributes }>;
        status?: { code: number; message?: string };
      }>;
    }>;
  }>;
}

function otlpValue(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(otlpValue);
  return undefined;
}

function attributesOf(list: OtlpAttributes): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) out[key] = otlpValue(value);
  return out;
}
