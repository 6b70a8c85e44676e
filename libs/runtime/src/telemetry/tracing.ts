import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '../config';

export interface TracingOptions {
  /** Spans also go here, each as it ends (tests: an InMemorySpanExporter). */
  exporter?: SpanExporter;
}

/** The process's tracing: `shutdown` exports what is buffered and unregisters it. */
export interface Tracing {
  readonly enabled: boolean;
  shutdown(): Promise<void>;
}

const SHUTDOWN_FLUSH_MS = 3_000;

const OFF: Tracing = { enabled: false, shutdown: async () => undefined };

/**
 * Start tracing for this process, as the OTEL_* variables say: nothing is registered unless an
 * exporter is asked for, so with tracing off every span is the API's no-op. One per process: the
 * SDK is global (embedded mode runs all services, and the reference agents, under one).
 */
export function startTracing(config: TracingConfig, service: string, options: TracingOptions = {}): Tracing {
  const processors = spanProcessors(config, options);
  if (processors.length === 0) return OFF;
  const provider = new TracerProvider({
    // OTEL_RESOURCE_ATTRIBUTES (deployment.environment, service.namespace…), then Flex's service name.
    resource: detectResources({ detectors: [envDetector] }).merge(
      resourceFromAttributes({ 'service.name': serviceName(config, service) }),
    ),
    sampler: samplerOf(config),
    spanProcessors: processors,
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  if (!context.setGlobalContextManager(contextManager) || !trace.setGlobalTracerProvider(provider)) {
    contextManager.disable();
    throw new Error('tracing is already started in this process');
  }
  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    shutdown: () =>
      (stopped ??= flushAtMost(provider, SHUTDOWN_FLUSH_MS).finally(() => {
        trace.disable();
        context.disable();
      })),
  };
}

/**
 * Export what is buffered, for `ms` at most: spans an unreachable receiver cannot take by then are
 * dropped, so tracing never keeps a process from stopping (the exporter would retry for 10 s).
 */
async function flushAtMost(provider: TracerProvider, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms).unref()));
  await Promise.race([provider.shutdown().catch(() => undefined), late]);
  clearTimeout(timer);
}

/**
 * The head sampler `OTEL_TRACES_SAMPLER` names (the OpenTelemetry specification's values;
 * `OTEL_TRACES_SAMPLER_ARG` is the ratio). The default, `parentbased_always_on`, keeps every run's
 * trace and follows a client's sampled flag.
 */
export function samplerOf(
  config: Pick<TracingConfig, 'OTEL_TRACES_SAMPLER' | 'OTEL_TRACES_SAMPLER_ARG'>,
): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(config.OTEL_TRACES_SAMPLER_ARG ?? 1);
  switch (config.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** `OTEL_SERVICE_NAME`, else `flex-<service>` (`flex` for the embedded system). */
export function serviceName(config: Pick<TracingConfig, 'OTEL_SERVICE_NAME'>, service: string): string {
  return config.OTEL_SERVICE_NAME ?? (service === 'flex' ? 'flex' : `flex-${service}`);
}

function spanProcessors(config: TracingConfig, options: TracingOptions): SpanProcessor[] {
  const processors: SpanProcessor[] = [];
  if (options.exporter) processors.push(new SimpleSpanProcessor({ exporter: options.exporter }));
  if (config.OTEL_SDK_DISABLED === 'true') return processors;
  const url = tracesEndpoint(config);
  const exporter = config.OTEL_TRACES_EXPORTER ?? (url ? 'otlp' : 'none');
  if (exporter === 'otlp') {
    const protocol = config.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? config.OTEL_EXPORTER_OTLP_PROTOCOL;
    const otlp =
      protocol === 'http/protobuf' ? new OTLPProtoTraceExporter({ url }) : new OTLPTraceExporter({ url });
    processors.push(new BatchSpanProcessor({ exporter: otlp }));
  }
  if (exporter === 'console')
    processors.push(new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() }));
  return processors;
}

/** The signal's own endpoint as given; the general one with `/v1/traces` appended (the OTLP rule). */
export function tracesEndpoint(config: TracingConfig): string | undefined {
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}
