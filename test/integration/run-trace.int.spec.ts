import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { loadConfig } from '@flex/runtime';
import { parseTraceparent } from '@flex/tracing';
import { FlexClient, parseSse, waitFor } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { RETHINK } from '../../services/gateway/src/runs/test-support/run-streams.behaviour';
import { fromReadableSpan, orphans, parentNames } from '../trace-spans';
import { envelopeWithPolicies, runEvents, waitForEvent } from './embedded-run';

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

const review = {
  id: 'review',
  trigger: { kind: 'onStart' },
  action: { type: 'hitl', rationale: 'Check the plan first' },
};

/** One trace per run, embedded, through a replan and a HITL approval: the spans every service records. */
describe('tracing: the span tree of a run (embedded, in-memory exporter)', () => {
  const exporter = new InMemorySpanExporter();
  let flex: EmbeddedFlex;
  let client: FlexClient;
  let operator: FlexClient;
  const spans = () => exporter.getFinishedSpans().map(fromReadableSpan);

  beforeAll(async () => {
    flex = await startEmbedded({
      config: loadConfig({
        FLEX_API_TOKENS: 'trace-client:client,trace-operator:operator',
        FLEX_LOG_LEVEL: 'silent',
        PORT: '0',
        FLEX_MAX_REPLANS: '1',
      }),
      dataDir: null,
      traceExporter: exporter,
    });
    client = new FlexClient(flex.url, 'trace-client');
    operator = new FlexClient(flex.url, 'trace-operator');
  }, 90_000);
  afterAll(() => flex?.close());
  beforeEach(() => exporter.reset());

  it('continues the caller’s trace through a HITL approval and a replan: one trace, expected parents, no orphans', async () => {
    const response = fetch(`${flex.url}/api/v1/flex/run.stream`, {
      method: 'POST',
      headers: client.headers({
        Accept: 'text/event-stream',
        traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
      }),
      body: JSON.stringify(envelopeWithPolicies([review, RETHINK])),
    });
    const res = await response;
    const runId = res.headers.get('x-flex-run-id') as string;
    const frames = res.text().then(parseSse);
    await waitForEvent(flex, runId, (e) => e.type === 'hitl_request');
    const resolved = await operator.json('POST', '/api/v1/flex/hitl/resolve', {
      runId,
      requestId: 'hitl-1',
      decision: 'approve',
    });
    expect(resolved.status).toBe(200);
    const types = (await frames).map((f) => f.type);
    expect(types[types.length - 1]).toBe('complete');
    expect(types).toEqual(expect.arrayContaining(['hitl_resolved', 'plan_updated']));

    // A span is exported when it ends, a parent after its children: the root ends with the stream,
    // and the executor's last reaction a moment after the `complete` it appended. Wait for the whole tree.
    const all = await waitFor(
      async () => {
        const now = spans();
        const whole = now.some((s) => s.name === 'run.stream') && orphans(now, CALLER_SPAN).length === 0;
        return whole && now.some((s) => s.name === 'plan.replan') ? now : undefined;
      },
      10_000,
      () =>
        `spans so far: ${spans()
          .map((s) => s.name)
          .join(', ')}`,
    );
    const names = new Set(all.map((s) => s.name));
    for (const name of [
      'run.stream',
      'plan.draft',
      'plan.prove',
      'plan.replan',
      'node.attempt',
      'agent.invoke',
      'policy.evaluate',
      'hitl.resolve',
      'hitl.wait',
      'run.advance',
      'registry.snapshot',
      'event_store.append',
    ])
      expect(names).toContain(name);

    expect(new Set(all.map((s) => s.traceId))).toEqual(new Set([CALLER_TRACE]));
    expect(orphans(all, CALLER_SPAN)).toEqual([]);
    const [root] = all.filter((s) => s.name === 'run.stream');
    expect(root).toMatchObject({ parentSpanId: CALLER_SPAN, attributes: { 'flex.run.id': runId } });
    for (const name of [
      'plan.draft',
      'plan.replan',
      'plan.prove',
      'node.attempt',
      'hitl.wait',
      'hitl.resolve',
    ])
      expect(new Set(parentNames(all, name))).toEqual(new Set(['run.stream']));
    expect(new Set(parentNames(all, 'agent.invoke'))).toEqual(new Set(['node.attempt']));
    expect(new Set(parentNames(all, 'policy.evaluate'))).toEqual(new Set(['run.advance']));
    expect(parentNames(all, 'plan.prove')).toHaveLength(2); // the first plan and the replan's

    // Every node attempt has its agent's span under it (human nodes aside: none here).
    const attempts = all.filter((s) => s.name === 'node.attempt');
    const invoked = new Set(all.filter((s) => s.name === 'agent.invoke').map((s) => s.parentSpanId));
    expect(attempts.filter((a) => !invoked.has(a.spanId))).toEqual([]);

    // The HITL wait spans the request to its decision, in the run's trace.
    const wait = all.find((s) => s.name === 'hitl.wait')!;
    expect(wait.attributes).toMatchObject({
      'flex.run.id': runId,
      'flex.hitl.request_id': 'hitl-1',
      'flex.hitl.decision': 'approve',
      'flex.policy.id': 'review',
    });

    // Every event of the run carries the root's context: a process picking the run up later joins it.
    const tp = `00-${CALLER_TRACE}-${root.spanId}-01`;
    expect(new Set((await runEvents(flex, runId)).map((e) => e.metadata.traceparent))).toEqual(new Set([tp]));
  }, 90_000);

  it.each([
    ['another version', `01-${CALLER_TRACE}-${CALLER_SPAN}-01`],
    ['upper case', `00-${CALLER_TRACE.toUpperCase()}-${CALLER_SPAN}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${CALLER_SPAN}-01`],
    ['garbage', 'not a traceparent'],
  ])(
    'ignores a traceparent with %s: the run starts a trace of its own',
    async (_why, header) => {
      const result = await client.runStream(envelopeWithPolicies([]), { traceparent: header });
      expect(result.frames[result.frames.length - 1]?.type).toBe('complete');
      const root = await waitFor(
        async () =>
          spans().find((s) => s.name === 'run.stream' && s.attributes['flex.run.id'] === result.runId),
        10_000,
        () => 'no run.stream span',
      );
      expect(root.parentSpanId).toBeUndefined();
      expect(root.traceId).not.toBe(CALLER_TRACE);
      const [start] = await runEvents(flex, result.runId!);
      expect(start.metadata.traceparent).toBe(`00-${root.traceId}-${root.spanId}-01`);
      expect(JSON.stringify(await runEvents(flex, result.runId!))).not.toContain(header);
    },
    60_000,
  );
});

/** A run waiting on a human when Flex stops: the Flex that starts on the same data joins the run's trace. */
describe('tracing: a run resumed by another process stays in its trace (embedded, restart)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flex-trace-'));
  const config = loadConfig({
    FLEX_API_TOKENS: 'trace-client:client,trace-operator:operator',
    FLEX_LOG_LEVEL: 'silent',
    FLEX_DATA_DIR: dataDir,
    PORT: '0',
  });
  let flex: EmbeddedFlex | undefined;
  afterAll(async () => {
    await flex?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('parents the spans after the restart to the stored root span: one trace id', async () => {
    flex = await startEmbedded({ config, traceExporter: new InMemorySpanExporter() });
    // The caller goes away while the run waits on a human (an open stream would hold the server's close).
    const caller = new AbortController();
    const res = await fetch(`${flex.url}/api/v1/flex/run.stream`, {
      method: 'POST',
      headers: new FlexClient(flex.url, 'trace-client').headers({ Accept: 'text/event-stream' }),
      body: JSON.stringify(envelopeWithPolicies([review])),
      signal: caller.signal,
    });
    const runId = res.headers.get('x-flex-run-id') as string;
    await waitForEvent(flex, runId, (e) => e.type === 'hitl_request');
    const [start] = await runEvents(flex, runId);
    const root = parseTraceparent(start.metadata.traceparent);
    caller.abort();
    await flex.close();

    const after = new InMemorySpanExporter();
    flex = await startEmbedded({ config, traceExporter: after });
    const approved = await new FlexClient(flex.url, 'trace-operator').json(
      'POST',
      '/api/v1/flex/hitl/resolve',
      {
        runId,
        requestId: 'hitl-1',
        decision: 'approve',
      },
    );
    expect(approved.status).toBe(200);
    await waitForEvent(flex, runId, (e) => e.type === 'complete');
    const spans = await waitFor(
      async () => {
        const now = after.getFinishedSpans().map(fromReadableSpan);
        const whole = now.some((s) => s.name === 'hitl.wait') && orphans(now, root?.spanId).length === 0;
        return whole && now.some((s) => s.name === 'node.attempt') ? now : undefined;
      },
      10_000,
      () => 'no node.attempt or hitl.wait after the restart, or a span whose parent is missing',
    );
    expect(root).toBeDefined();
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([root!.traceId]));
    expect(orphans(spans, root!.spanId)).toEqual([]);
    for (const name of ['hitl.wait', 'hitl.resolve', 'node.attempt'])
      expect(new Set(spans.filter((s) => s.name === name).map((s) => s.parentSpanId))).toEqual(
        new Set([root!.spanId]),
      );
  }, 120_000);
});
