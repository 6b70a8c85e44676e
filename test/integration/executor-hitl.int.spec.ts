import { START_CHECKPOINT } from '@flex/event-store';
import type { FlexClient } from '@flex/testing';
import type { EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import {
  envelopeWithPolicies,
  isTerminal,
  openRun,
  runEvents,
  startFlexWithAgents,
  waitForEvent,
} from './embedded-run';

/** Runtime policies, HITL, pause/resume and manual triggers through the public API (embedded mode, real HTTP). */
describe('executor: policies, HITL and pause/resume through the API', () => {
  let flex: EmbeddedFlex;
  let client: FlexClient;
  let operator: FlexClient;
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ flex, client, operator, stop } = await startFlexWithAgents());
  }, 60_000);

  afterAll(async () => {
    await stop?.();
  });

  const review = {
    id: 'review',
    trigger: { kind: 'onStart' },
    action: { type: 'hitl', rationale: 'Check the plan first' },
  };
  const types = async (runId: string) => (await runEvents(flex, runId)).map((e) => e.type);

  it('onStart → hitl: the run waits (stream open), approval resumes it to complete; a second resolution is 409 and changes nothing', async () => {
    const run = await openRun(client, envelopeWithPolicies([review]));
    const request = await waitForEvent(flex, run.runId, (e) => e.type === 'hitl_request');
    expect(request.payload).toMatchObject({
      requestId: 'hitl-1',
      policyId: 'review',
      rationale: 'Check the plan first',
      mode: 'approval',
    });
    const triggered = (await runEvents(flex, run.runId)).find((e) => e.type === 'policy_triggered');
    expect(triggered?.payload).toMatchObject({
      policyId: 'review',
      actionDetails: { type: 'hitl' },
      decision: { result: 'DENY', severity: 'hard' },
    });
    expect(await types(run.runId)).not.toContain('node_start');
    const detail = await client.json('GET', `/api/v1/flex/runs/${run.runId}`);
    expect(detail.body.run.status).toBe('awaiting_hitl');

    expect(
      (
        await client.json('POST', '/api/v1/flex/hitl/resolve', {
          runId: run.runId,
          requestId: 'hitl-1',
          decision: 'approve',
        })
      ).status,
    ).toBe(403);
    const ok = await operator.json('POST', '/api/v1/flex/hitl/resolve', {
      runId: run.runId,
      requestId: 'hitl-1',
      decision: 'approve',
      note: 'fine',
    });
    expect(ok).toMatchObject({ status: 200, body: { ok: true, decision: 'approve' } });
    const frames = await run.frames;
    expect(frames.map((f) => f.type)).toEqual(
      expect.arrayContaining(['hitl_request', 'hitl_resolved', 'node_start', 'complete']),
    );
    expect(frames[frames.length - 1].type).toBe('complete');

    const before = (await runEvents(flex, run.runId)).length;
    const again = await operator.json('POST', '/api/v1/flex/hitl/resolve', {
      runId: run.runId,
      requestId: 'hitl-1',
      decision: 'reject',
    });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'hitl_already_resolved' } } });
    expect((await runEvents(flex, run.runId)).length).toBe(before);
  }, 60_000);

  it('hitl/resolve: unknown run or request 404, a bad body 400 naming the path', async () => {
    expect(
      (
        await operator.json('POST', '/api/v1/flex/hitl/resolve', {
          runId: 'nope',
          requestId: 'hitl-1',
          decision: 'approve',
        })
      ).body.error.code,
    ).toBe('run_not_found');
    const run = await openRun(client, envelopeWithPolicies([review]));
    await waitForEvent(flex, run.runId, (e) => e.type === 'hitl_request');
    const unknown = await operator.json('POST', '/api/v1/flex/hitl/resolve', {
      runId: run.runId,
      requestId: 'hitl-9',
      decision: 'approve',
    });
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'hitl_request_not_found' } } });
    const bad = await operator.json('POST', '/api/v1/flex/hitl/resolve', {
      runId: run.runId,
      requestId: 'hitl-1',
      decision: 'maybe',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^decision: /);

    // HITL rejection defaults to fail.
    expect(
      (
        await operator.json('POST', '/api/v1/flex/hitl/resolve', {
          runId: run.runId,
          requestId: 'hitl-1',
          decision: 'reject',
        })
      ).status,
    ).toBe(200);
    const frames = await run.frames;
    expect(frames[frames.length - 1]).toMatchObject({
      type: 'run_failed',
      payload: { code: 'hitl_rejected' },
    });
  }, 60_000);

  it('nested HITL follow-ups: approval asks again, the second rejection runs its rejectAction (fail with a message)', async () => {
    const nested = {
      id: 'two_step',
      trigger: { kind: 'onStart' },
      action: {
        type: 'hitl',
        approveAction: {
          type: 'hitl',
          rationale: 'Second look',
          rejectAction: { type: 'fail', message: 'second reviewer said no' },
        },
      },
    };
    const run = await openRun(client, envelopeWithPolicies([nested]));
    await waitForEvent(flex, run.runId, (e) => e.type === 'hitl_request');
    await operator.json('POST', '/api/v1/flex/hitl/resolve', {
      runId: run.runId,
      requestId: 'hitl-1',
      decision: 'approve',
    });
    const second = await waitForEvent(
      flex,
      run.runId,
      (e) => e.type === 'hitl_request' && (e.payload as { requestId: string }).requestId === 'hitl-2',
    );
    expect(second.payload).toMatchObject({ rationale: 'Second look' });
    await operator.json('POST', '/api/v1/flex/hitl/resolve', {
      runId: run.runId,
      requestId: 'hitl-2',
      decision: 'reject',
    });
    const frames = await run.frames;
    expect(frames[frames.length - 1]).toMatchObject({
      type: 'run_failed',
      payload: { code: 'policy_failed', reason: 'second reviewer said no' },
    });
    expect(frames.filter((f) => f.type === 'complete' || f.type === 'run_failed')).toHaveLength(1);
  }, 60_000);

  it('legacy action names are rejected at the API with a migration hint, and nothing is stored', async () => {
    const before = (await flex.runtime.store.readAll(START_CHECKPOINT, 10_000)).events.length;
    for (const [type, hint] of [
      ['goto', /replan/],
      ['hitl_pause', /use "hitl"/],
      ['fail_run', /use "fail"/],
    ] as const) {
      const res = await client.runStream(
        envelopeWithPolicies([{ id: 'legacy', trigger: { kind: 'onStart' }, action: { type } }]),
      );
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain('policies.runtime[0].action.type');
      expect(res.body.error.message).toMatch(hint);
    }
    expect((await flex.runtime.store.readAll(START_CHECKPOINT, 10_000)).events.length).toBe(before);
  });

  it('pause → the stream ends on run_paused; resume: stale version 409, concurrent resumes exactly one wins, the winner streams to complete', async () => {
    const pause = {
      id: 'brand',
      trigger: { kind: 'onNodeComplete', selector: { kind: 'structuring' } },
      action: { type: 'pause', reason: 'brand check' },
    };
    const run = await openRun(client, envelopeWithPolicies([pause]));
    const frames = await run.frames;
    expect(frames[frames.length - 1]).toMatchObject({
      type: 'run_paused',
      payload: { reason: 'brand check', policyId: 'brand', snapshot: { planVersion: 1 } },
    });
    const snapshot = frames[frames.length - 1].payload.snapshot;
    expect(Object.values(snapshot.nodes).some((n: any) => n.status === 'completed' && n.attempt === 1)).toBe(
      true,
    );
    expect((await client.json('GET', `/api/v1/flex/runs/${run.runId}`)).body.run.status).toBe('paused');

    const stale = await client.json('POST', '/api/v1/flex/run.resume', {
      runId: run.runId,
      expectedPlanVersion: 2,
    });
    expect(stale).toMatchObject({ status: 409, body: { error: { code: 'stale_plan_version' } } });
    expect(
      (await client.json('POST', '/api/v1/flex/run.resume', { runId: 'run_unknown', expectedPlanVersion: 1 }))
        .status,
    ).toBe(404);

    const resume = () =>
      fetch(`${client.baseUrl}/api/v1/flex/run.resume`, {
        method: 'POST',
        headers: client.headers({ Accept: 'text/event-stream' }),
        body: JSON.stringify({ runId: run.runId, expectedPlanVersion: 1 }),
      });
    const [a, b] = await Promise.all([resume(), resume()]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const winner = a.status === 200 ? a : b;
    const loser = a.status === 200 ? b : a;
    expect(((await loser.json()) as { error: { code: string } }).error.code).toBe('invalid_run_state');
    const rest = (await winner.text())
      .split('\n\n')
      .filter((block) => block.includes('data:'))
      .map((block) => JSON.parse(block.slice(block.indexOf('data:') + 5)));
    expect(rest[0].type).toBe('run_resumed');
    expect(rest[rest.length - 1].type).toBe('complete');
    const all = await types(run.runId);
    expect(all.filter((t) => t === 'run_resumed')).toHaveLength(1);
    expect(all.filter((t) => t === 'plan_requested')).toHaveLength(1); // resumed without replanning
    expect(
      (await client.json('POST', '/api/v1/flex/run.resume', { runId: run.runId, expectedPlanVersion: 1 }))
        .body.error.code,
    ).toBe('invalid_run_state');
  }, 60_000);

  it('manual trigger (operator): emit while waiting, then fail; unknown policy 404, an ended run 409', async () => {
    const policies = [
      review,
      {
        id: 'note',
        trigger: { kind: 'manual' },
        action: { type: 'emit', event: 'operator_note', payload: { n: 1 } },
      },
      { id: 'stop', trigger: { kind: 'manual' }, action: { type: 'fail', message: 'stopped' } },
    ];
    const run = await openRun(client, envelopeWithPolicies(policies));
    await waitForEvent(flex, run.runId, (e) => e.type === 'hitl_request');
    const path = (id: string) => `/api/v1/flex/runs/${run.runId}/policies/${id}/trigger`;
    expect((await client.json('POST', path('note'))).status).toBe(403);
    expect(await operator.json('POST', path('note'))).toMatchObject({
      status: 200,
      body: { events: [{ type: 'policy_triggered' }, { type: 'custom_event' }] },
    });
    expect((await operator.json('POST', path('missing'))).status).toBe(404);
    expect((await operator.json('POST', '/api/v1/flex/runs/run_nope/policies/note/trigger')).status).toBe(
      404,
    );
    expect((await operator.json('POST', path('stop'))).status).toBe(200);
    const frames = await run.frames;
    expect(frames.map((f) => f.type)).toContain('custom_event');
    expect(frames[frames.length - 1]).toMatchObject({
      type: 'run_failed',
      payload: { code: 'policy_failed', reason: 'stopped' },
    });
    expect(await operator.json('POST', path('note'))).toMatchObject({
      status: 409,
      body: { error: { code: 'invalid_run_state' } },
    });
  }, 60_000);

  it('onTimeout fires on its own while the run waits for an operator (durable timer, no other event needed)', async () => {
    const deadline = {
      id: 'deadline',
      trigger: { kind: 'onTimeout', ms: 1500 },
      action: { type: 'fail', message: 'deadline passed' },
    };
    const run = await openRun(client, envelopeWithPolicies([review, deadline]));
    const end = await waitForEvent(flex, run.runId, isTerminal, 20_000);
    expect(end).toMatchObject({
      type: 'run_failed',
      payload: { code: 'policy_failed', reason: 'deadline passed' },
    });
    const events = await runEvents(flex, run.runId);
    const fired = events.find(
      (e) => e.type === 'policy_triggered' && (e.payload as { policyId: string }).policyId === 'deadline',
    );
    expect(Date.parse(fired!.timestamp) - Date.parse(events[0].timestamp)).toBeGreaterThanOrEqual(1500);
    await run.frames;
  }, 60_000);

  it('onNodeComplete with a condition over the node output → replan: policy_triggered then plan_requested {reason: replan}', async () => {
    const lowQa = {
      id: 'low_quality',
      trigger: {
        kind: 'onNodeComplete',
        selector: { kind: 'execution' },
        condition: { '>=': [{ var: 'copyVariants.length' }, 2] },
      },
      action: { type: 'replan' },
    };
    const run = await openRun(client, envelopeWithPolicies([lowQa]));
    const request = await waitForEvent(
      flex,
      run.runId,
      (e) => e.type === 'plan_requested' && (e.payload as { reason: string }).reason === 'replan',
    ).catch(async (error) => {
      throw new Error(
        `${error.message}\n${JSON.stringify((await runEvents(flex, run.runId)).map((e) => [e.type, (e.payload as any).nodeId, (e.payload as any).kind, (e.payload as any).plan?.nodes?.map((n: any) => [n.id, n.kind, n.capabilityId])]))}`,
      );
    });
    expect(request.payload).toMatchObject({
      reason: 'replan',
      replan: { previousVersion: 1, trigger: { kind: 'onNodeComplete', policyId: 'low_quality' } },
    });
    const events = await runEvents(flex, run.runId);
    const i = events.indexOf(events.find((e) => e.id === request.id)!);
    expect(events[i - 1]).toMatchObject({
      type: 'policy_triggered',
      payload: { policyId: 'low_quality', actionDetails: { type: 'replan' } },
    });
    expect((request.payload as { replan: { completedNodeIds: string[] } }).replan.completedNodeIds).toContain(
      'execution-1',
    );
  }, 60_000);
});
