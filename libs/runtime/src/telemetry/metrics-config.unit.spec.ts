import { loadConfig, ConfigError } from '../config';
import { metricsSettings } from './metrics-config';

const settings = (env: Record<string, string>) => metricsSettings(loadConfig(env));

describe('metricsSettings: OTLP metrics from the standard OTEL_* variables', () => {
  it('off by default: /metrics only', () => {
    expect(settings({})).toEqual({});
  });

  it('on when an endpoint is set and OTEL_METRICS_EXPORTER is not, to <endpoint>/v1/metrics', () => {
    expect(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      otlp: { url: 'http://collector:4318/v1/metrics', intervalMs: 60_000 },
    });
    expect(
      settings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://metrics:9000/in',
        OTEL_METRIC_EXPORT_INTERVAL: '5000',
      }),
    ).toEqual({ otlp: { url: 'http://metrics:9000/in', intervalMs: 5000 } });
  });

  it('OTEL_METRICS_EXPORTER decides: otlp turns it on (default endpoint), none or prometheus keeps it off', () => {
    expect(settings({ OTEL_METRICS_EXPORTER: 'otlp' })).toEqual({
      otlp: { url: 'http://localhost:4318/v1/metrics', intervalMs: 60_000 },
    });
    expect(settings({ OTEL_METRICS_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual(
      {},
    );
    expect(
      settings({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toEqual({});
  });

  it('refuses an unknown exporter or a bad endpoint, naming the variable', () => {
    expect(() => loadConfig({ OTEL_METRICS_EXPORTER: 'otlp,zipkin' })).toThrow(ConfigError);
    expect(() => loadConfig({ OTEL_METRICS_EXPORTER: 'zipkin' })).toThrow(/OTEL_METRICS_EXPORTER/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });
});
