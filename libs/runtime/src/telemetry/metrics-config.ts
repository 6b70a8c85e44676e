import { z } from 'zod';

/**
 * The standard OpenTelemetry variables the metrics read (spread into the runtime's config schema,
 * which stays the only reader of process.env). Prometheus text at `GET /metrics` is always on;
 * OTLP/HTTP is added by `OTEL_METRICS_EXPORTER=otlp`, or by an OTLP endpoint when
 * `OTEL_METRICS_EXPORTER` is unset; `none` leaves only `/metrics`.
 */
export const METRICS_ENV = {
  OTEL_METRICS_EXPORTER: z
    .string()
    .transform((v) => v.split(',').map((e) => e.trim()))
    .pipe(
      z.array(
        z.enum(['otlp', 'prometheus', 'none'], {
          error: 'expected a comma-separated list of otlp, prometheus, none',
        }),
      ),
    )
    .optional(),
  /** Base URL of an OTLP/HTTP receiver: metrics go to `<this>/v1/metrics`. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** Full URL of the OTLP/HTTP metrics endpoint (takes precedence over the base URL). */
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: z.url().optional(),
  /** Milliseconds between two OTLP exports. */
  OTEL_METRIC_EXPORT_INTERVAL: z.coerce.number().int().min(100).default(60_000),
};

type MetricsEnv = Partial<{ [K in keyof typeof METRICS_ENV]: z.output<(typeof METRICS_ENV)[K]> }>;

export interface MetricsSettings {
  /** Where OTLP/HTTP metrics go, when they do. */
  otlp?: { url: string; intervalMs: number };
}

/** Whether and where OTLP metrics are exported (see {@link METRICS_ENV}). */
export function metricsSettings(env: MetricsEnv): MetricsSettings {
  const endpoint =
    env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ??
    (env.OTEL_EXPORTER_OTLP_ENDPOINT && `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/metrics`);
  const wanted = env.OTEL_METRICS_EXPORTER ?? (endpoint ? ['otlp'] : []);
  if (!wanted.includes('otlp') || wanted.includes('none')) return {};
  return {
    otlp: {
      url: endpoint ?? 'http://localhost:4318/v1/metrics',
      intervalMs: env.OTEL_METRIC_EXPORT_INTERVAL ?? 60_000,
    },
  };
}
