import { context, propagation, trace } from "@opentelemetry/api";
import { CliError } from "./io.js";

/** Stops the exporter: flushes the spans still buffered, then unregisters the provider. */
export type StopTracing = () => Promise<void>;

/** The OTLP/HTTP traces URL the environment names, or undefined when none is set. @internal */
export function otlpTracesUrl(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined;
}

/**
 * Exports the process's spans over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: loads the OpenTelemetry SDK (optional dependencies
 * of `@trellis/cli`, imported only then), registers a tracer provider with a batching exporter and the
 * W3C propagator, and returns how to stop it. Without the variable it loads nothing and returns
 * undefined. `OTEL_SERVICE_NAME` names the service (default `trellis`); `OTEL_EXPORTER_OTLP_HEADERS`
 * and `OTEL_BSP_*` are read as the SDK documents them.
 *
 * @example
 * const stop = await startOtlpExport(io.env); // before createServer
 * // … serve …
 * await stop?.();
 */
export async function startOtlpExport(
  env: Readonly<Record<string, string | undefined>>,
): Promise<StopTracing | undefined> {
  const url = otlpTracesUrl(env);
  if (!url) return undefined;
  let sdk: typeof import("@opentelemetry/sdk-trace-node");
  let exporter: typeof import("@opentelemetry/exporter-trace-otlp-http");
  let resources: typeof import("@opentelemetry/resources");
  try {
    [sdk, exporter, resources] = await Promise.all([
      import("@opentelemetry/sdk-trace-node"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
    ]);
  } catch (error) {
    throw new CliError(
      `OTEL_EXPORTER_OTLP_ENDPOINT is set, but the OpenTelemetry SDK could not be loaded (${(error as Error).message}). Install it next to @trellis/cli: npm install @opentelemetry/sdk-trace-node@2.12 @opentelemetry/exporter-trace-otlp-http@0.223 @opentelemetry/resources@2.12 — or unset the variable.`,
    );
  }
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  const provider = new sdk.NodeTracerProvider({
    resource: resources.resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME?.trim() || "trellis" }),
    spanProcessors: [
      new sdk.BatchSpanProcessor(
        new exporter.OTLPTraceExporter({ url }),
        Number.isFinite(delay) && delay > 0 ? { scheduledDelayMillis: delay } : {},
      ),
    ],
  });
  provider.register();
  return async () => {
    await provider.shutdown().catch(() => undefined);
    trace.disable();
    context.disable();
    propagation.disable();
  };
}
