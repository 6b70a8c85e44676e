import { FlexClient, parsePrometheusText, sampleSum, waitFor } from '@flex/testing';
import { useEmbeddedFlex } from './embedded-flex';
import { envelopeWithPolicies, openRun, waitForEvent } from './embedded-run';

const REVIEW = {
  id: 'review',
  trigger: { kind: 'onStart' },
  action: { type: 'hitl', rationale: 'Check first' },
};

/**
 * The metrics of a run that waits for a human, through the public API (embedded, real HTTP): the
 * policy trigger by action, the HITL wait by decision, the SSE client while its stream is open, and a
 * cancelled run counted once with its duration.
 */
describe('HITL, cancel and SSE metrics (embedded)', () => {
  const embedded = useEmbeddedFlex('metrics-hitl-client', {
    FLEX_API_TOKENS: 'metrics-hitl-client:client,metrics-hitl-operator:operator',
  });
  const flex = () => embedded.flex();
  const operator = () => new FlexClient(flex().url, 'metrics-hitl-operator');

  const metric = async (name: string, labels: Record<string, string> = {}): Promise<number> =>
    sampleSum(parsePrometheusText(await (await fetch(`${flex().url}/metrics`)).text()), name, labels);
  const waitForMetric = (name: string, labels: Record<string, string>, value: number) =>
    waitFor(
      async () => (await metric(name, labels)) === value,
      10_000,
      () => `${name} never reached ${value}`,
    );

  it('an approved HITL wait: the trigger by action, the wait by decision, the stream as an SSE client until it ends', async () => {
    const triggers = await metric('flex_policy_triggers_total', { action: 'hitl' });
    const waits = await metric('flex_hitl_wait_seconds_count', { decision: 'approve' });
    const clients = await metric('flex_sse_clients');
    const run = await openRun(embedded.client(), envelopeWithPolicies([REVIEW]));
    await waitForEvent(flex(), run.runId, (e) => e.type === 'hitl_request');
    await waitForMetric('flex_sse_clients', {}, clients + 1);
    expect(await metric('flex_policy_triggers_total', { action: 'hitl' })).toBe(triggers + 1);
    const resolved = await operator().json('POST', '/api/v1/flex/hitl/resolve', {
      runId: run.runId,
      requestId: 'hitl-1',
      decision: 'approve',
    });
    expect(resolved.status).toBe(200);
    expect((await run.frames).at(-1)?.type).toBe('complete');
    await waitForMetric('flex_hitl_wait_seconds_count', { decision: 'approve' }, waits + 1);
    await waitForMetric('flex_sse_clients', {}, clients);
  }, 60_000);

  it('a run cancelled while it waits: counted cancelled once, with its duration, never failed or completed', async () => {
    const ended = async () =>
      Promise.all(
        ['flex_runs_completed_total', 'flex_runs_failed_total', 'flex_runs_cancelled_total'].map((n) =>
          metric(n),
        ),
      );
    const before = await ended();
    const durations = await metric('flex_run_duration_seconds_count', { outcome: 'cancelled' });
    const run = await openRun(embedded.client(), envelopeWithPolicies([REVIEW]));
    await waitForEvent(flex(), run.runId, (e) => e.type === 'hitl_request');
    const cancel = () =>
      embedded.client().json('POST', `/api/v1/flex/runs/${run.runId}/cancel`, { reason: 'not needed' });
    expect((await cancel()).status).toBe(200);
    expect((await cancel()).body).toMatchObject({ alreadyCancelled: true });
    expect((await run.frames).at(-1)?.type).toBe('run_cancelled');
    await waitForMetric('flex_run_duration_seconds_count', { outcome: 'cancelled' }, durations + 1);
    expect((await ended()).map((n, i) => n - before[i])).toEqual([0, 0, 1]);
  }, 60_000);
});
