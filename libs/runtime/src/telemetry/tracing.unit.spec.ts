import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, loadTracingConfig } from '../config';
import { samplerOf, startTracing, tracesEndpoint } from './tracing';

/** Whether a span started now is recorded (it is never ended, so never exported). */
const recording = () => trace.getTracer('test').startSpan('probe').isRecording();

describe('startTracing', () => {
  it('registers nothing when no exporter is asked for: every span is a no-op', async () => {
    for (const env of [
      {},
      { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' },
      { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' },
    ]) {
      const tracing = startTracing(loadTracingConfig(env), 'gateway');
      expect(tracing.enabled).toBe(false);
      expect(recording()).toBe(false);
      await tracing.shutdown();
    }
  });

  it('turns on with an OTLP endpoint, and off again on shutdown (a receiver that does not answer holds it up 3 s at most)', async () => {
    // A receiver that takes the export and answers only after 4 s. (An unreachable one would do as
    // well, but its refused connections are retried for seconds after the test, holding the jest
    // worker open; the services exit explicitly once shut down, so they do not wait for that.)
    let answered!: () => void;
    const done = new Promise<void>((resolve) => (answered = resolve));
    const receiver = createServer((req, res) => {
      req.resume();
      setTimeout(() => res.end('{}', answered), 4_000);
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    try {
      const tracing = startTracing(
        loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }),
        'planner',
      );
      expect(tracing.enabled).toBe(true);
      expect(recording()).toBe(true);
      trace.getTracer('test').startSpan('unanswered').end();
      const stopping = Date.now();
      await expect(tracing.shutdown()).resolves.toBeUndefined();
      expect(Date.now() - stopping).toBeLessThan(3_900);
      expect(recording()).toBe(false);
      await done;
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('names the service flex-<service> unless OTEL_SERVICE_NAME says otherwise; one SDK per process', async () => {
    for (const [env, name] of [
      [{}, 'flex-executor'],
      [{ OTEL_SERVICE_NAME: 'exec-eu-1' }, 'exec-eu-1'],
    ] as const) {
      const exporter = new InMemorySpanExporter();
      const tracing = startTracing(loadTracingConfig(env), 'executor', { exporter });
      expect(() => startTracing(loadTracingConfig(env), 'executor', { exporter })).toThrow(/already started/);
      trace.getTracer('test').startSpan('probe').end();
      expect(exporter.getFinishedSpans().map((s) => s.resource.attributes['service.name'])).toEqual([name]);
      await tracing.shutdown();
    }
  });

  it('adds OTEL_RESOURCE_ATTRIBUTES to every span’s resource', async () => {
    const exporter = new InMemorySpanExporter();
    const saved = process.env.OTEL_RESOURCE_ATTRIBUTES;
    process.env.OTEL_RESOURCE_ATTRIBUTES = 'deployment.environment=staging,service.namespace=flex-eu';
    try {
      const tracing = startTracing(loadTracingConfig({}), 'executor', { exporter });
      trace.getTracer('test').startSpan('probe').end();
      expect(exporter.getFinishedSpans()[0].resource.attributes).toMatchObject({
        'deployment.environment': 'staging',
        'service.namespace': 'flex-eu',
        'service.name': 'flex-executor',
      });
      await tracing.shutdown();
    } finally {
      if (saved === undefined) delete process.env.OTEL_RESOURCE_ATTRIBUTES;
      else process.env.OTEL_RESOURCE_ATTRIBUTES = saved;
    }
  });

  it('sends to the signal endpoint as given, else to <endpoint>/v1/traces', () => {
    const endpoint = (env: Record<string, string>) => tracesEndpoint(loadTracingConfig(env));
    expect(endpoint({})).toBeUndefined();
    expect(endpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://tempo:4318/' })).toBe(
      'http://tempo:4318/v1/traces',
    );
    expect(
      endpoint({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://tempo:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://jaeger:4318/custom',
      }),
    ).toBe('http://jaeger:4318/custom');
  });

  it('refuses settings it cannot honour, naming the variable', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL: Flex exports OTLP over HTTP: set http\/json \(the default\) or http\/protobuf/,
    );
    expect(() => loadConfig({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });

  it('samples as OTEL_TRACES_SAMPLER says: every trace by default, following a parent’s flag', () => {
    const traceId = 'a'.repeat(32);
    const sampled = (env: Record<string, string>, parentFlags?: number) => {
      const parent =
        parentFlags === undefined
          ? ROOT_CONTEXT
          : trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: 'b'.repeat(16), traceFlags: parentFlags });
      const result = samplerOf(loadTracingConfig(env)).shouldSample(
        parent,
        traceId,
        'run.stream',
        SpanKind.SERVER,
        {},
        [],
      );
      return result.decision !== 0; // SamplingDecision.NOT_RECORD
    };
    expect(sampled({})).toBe(true);
    expect(sampled({}, TraceFlags.NONE)).toBe(false);
    expect(sampled({}, TraceFlags.SAMPLED)).toBe(true);
    expect(sampled({ OTEL_TRACES_SAMPLER: 'always_off' })).toBe(false);
    expect(sampled({ OTEL_TRACES_SAMPLER: 'always_on' }, TraceFlags.NONE)).toBe(true);
    expect(sampled({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' })).toBe(false);
    expect(sampled({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' })).toBe(
      true,
    );
    expect(
      sampled(
        { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
        TraceFlags.SAMPLED,
      ),
    ).toBe(true);
  });
});
