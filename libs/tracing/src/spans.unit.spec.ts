import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { contextOf, inChildSpan, inRemoteSpan, inSpan, traceHeaders, traceparentOf } from './spans';

const CALLER = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('span helpers', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const names = () => exporter.getFinishedSpans().map((s) => s.name);

  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });
  beforeEach(() => exporter.reset());

  it('a failed span keeps the error code, never the message (messages can quote inputs)', async () => {
    const failure = Object.assign(new Error('could not use hunter2-secret'), { code: 'agent_failed' });
    await expect(inSpan('work', {}, async () => Promise.reject(failure))).rejects.toBe(failure);
    const [span] = exporter.getFinishedSpans();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'agent_failed' });
    expect(span.attributes['error.type']).toBe('agent_failed');
    const { name, attributes, status, events, links } = span;
    expect(JSON.stringify({ name, attributes, status, events, links })).not.toContain('hunter2');
  });

  it('child spans only inside a trace: an append outside one starts no trace of its own', async () => {
    await inChildSpan('event_store.append', {}, async () => undefined);
    expect(names()).toEqual([]);
    await inSpan('run.advance', {}, () => inChildSpan('event_store.append', {}, async () => undefined));
    const [child, parent] = exporter.getFinishedSpans();
    expect([child.name, parent.name]).toEqual(['event_store.append', 'run.advance']);
    expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  });

  it('a remote caller’s valid traceparent parents the span; an invalid one traces nothing', async () => {
    await inRemoteSpan('00-not-valid', 'agent.invoke', {}, async () => undefined);
    expect(names()).toEqual([]);
    const headers = await inRemoteSpan(CALLER, 'agent.invoke', {}, async () => traceHeaders());
    const [span] = exporter.getFinishedSpans();
    expect(span.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(span.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    // What it passes on is its own span, in the same trace.
    expect(headers).toEqual({
      traceparent: traceparentOf(trace.setSpanContext(context.active(), span.spanContext())),
    });
  });

  it('a context made of a traceparent gives the same traceparent back', () => {
    expect(traceparentOf(contextOf(CALLER))).toBe(CALLER);
    expect(traceparentOf(contextOf(undefined))).toBeUndefined();
    expect(traceHeaders()).toBeUndefined();
  });
});
