import { defineAgent } from '@flex/agent-sdk';
import { contentGeneratorAgent } from '@flex/agents-reference';
import type { FlexClient } from '@flex/testing';
import type { EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import {
  envelopeWithPolicies,
  openRun,
  runEvents,
  startFlex,
  startTestAgents,
  waitForEvent,
} from './embedded-run';
import {
  executorSettled,
  expectEndedOnce,
  indexOf,
  payloads,
  resolve,
  resume,
  trigger,
  types,
  waitForEnd,
} from './lifecycle';

const WRITER = contentGeneratorAgent.registration.capabilityId;
const DIRECT = 'ZZ.directWriter';
const brief = {
  angle: 'Straight from the objective',
  keyPoints: ['What the objective says'],
  constraints: [],
};

/** Released by the test: lane 2 of a `[gate]` run waits for it. */
let releaseLane2: () => void = () => undefined;
let lane2Gate: Promise<void> = Promise.resolve();
function closeGate(): void {
  lane2Gate = new Promise((resolve) => (releaseLane2 = resolve));
}

/** The reference writer, except: lane 2 of a `[gate]` run waits for the test, and fails for good in a `[lane-2 down]` run. */
const writer = defineAgent({
  registration: contentGeneratorAgent.registration,
  handle: async (invocation, ctx) => {
    const lane2 = invocation.nodeId.includes('lane-2');
    if (lane2 && invocation.context.objective.includes('[gate]')) await lane2Gate;
    if (lane2 && invocation.context.objective.includes('[lane-2 down]')) {
      throw Object.assign(new Error('the writer backend is down for lane 2'), {
        code: 'writer_down',
        retryable: true,
      });
    }
    return contentGeneratorAgent.handle(invocation, ctx);
  },
});

/** Another writer, from the objective alone (so not a drop-in fallback: a replan is needed); down in a `[direct down]` run. */
const direct = defineAgent({
  registration: {
    ...contentGeneratorAgent.registration,
    capabilityId: DIRECT,
    displayName: 'Direct writer',
    inputContract: ['objectiveBrief'],
  },
  handle: async (invocation, ctx) => {
    if (invocation.context.objective.includes('[direct down]'))
      throw Object.assign(new Error('direct writer down'), { code: 'direct_down', retryable: true });
    return contentGeneratorAgent.handle(
      { ...invocation, capabilityId: WRITER, inputs: { writerBrief: brief, ...invocation.inputs } },
      ctx,
    );
  },
});

/** The sample envelope asking for seven variants: two writer lanes in parallel, merged. */
function sevenVariants(runtime: unknown[], marker: string): Record<string, any> {
  const envelope = envelopeWithPolicies(runtime);
  envelope.objective = `${envelope.objective} ${marker}`;
  envelope.outputContract.schema.properties.copyVariants.minItems = 7;
  envelope.outputContract.schema.properties.copyVariants.maxItems = 7;
  envelope.inputs.variantCount = 7;
  delete envelope.specialInstructions;
  return envelope;
}

const review = {
  id: 'review',
  trigger: { kind: 'onStart' },
  action: { type: 'hitl', rationale: 'Check the plan first' },
};
const hold = { id: 'hold', trigger: { kind: 'manual' }, action: { type: 'pause', reason: 'operator hold' } };
const rethink = {
  id: 'rethink',
  trigger: { kind: 'manual' },
  action: { type: 'replan', rationale: 'try again' },
};
const isReplan = (e: { type: string; payload: unknown }) =>
  e.type === 'plan_requested' && (e.payload as { reason: string }).reason === 'replan';

/**
 * The lifecycle where its paths cross (docs/lifecycle.md), over HTTP/SSE on an embedded Flex: HITL
 * with pause, resume and replan, and replans of branched plans. Every run ends with exactly one
 * terminal event, never `complete` with a HITL request pending.
 */
describe('run lifecycle: human gates hold, and every run ends', () => {
  let flex: EmbeddedFlex;
  let client: FlexClient;
  let operator: FlexClient;
  let stopAgents: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ flex, client, operator } = await startFlex({ FLEX_NODE_MAX_ATTEMPTS: '1', FLEX_MAX_REPLANS: '1' }));
    stopAgents = await startTestAgents(flex, [writer, direct]);
  }, 60_000);

  afterAll(async () => {
    await stopAgents?.();
    await flex?.close();
  });

  const status = async (runId: string) =>
    (await client.json('GET', `/api/v1/flex/runs/${runId}`)).body.run.status;

  /** Start a run held by its onStart review, then paused by an operator: the request pending, the run paused. */
  async function pausedWhileWaiting() {
    const run = await openRun(client, envelopeWithPolicies([review, hold]));
    await waitForEvent(flex, run.runId, (e) => e.type === 'hitl_request');
    expect(types(await trigger(operator, run.runId, 'hold'))).toEqual(['policy_triggered', 'run_paused']);
    await run.frames;
    return run.runId;
  }

  it('silent hang: paused during a HITL wait, approved while paused, resumed: the approval takes effect on resume and the run completes', async () => {
    const runId = await pausedWhileWaiting();
    expect(await resolve(operator, runId, 'hitl-1', 'approve')).toMatchObject({
      ok: true,
      takesEffect: 'on_resume',
    });
    const decided = await waitForEvent(flex, runId, (e) => e.type === 'hitl_resolved');
    await executorSettled(flex, decided.position);
    expect(types(await runEvents(flex, runId))).not.toContain('node_start');
    expect(await status(runId)).toBe('paused');

    const resumed = await resume(client, runId, 1);
    expect(resumed.status).toBe(200);
    const frames = await resumed.frames;
    expect(frames[0].type).toBe('run_resumed');
    expect(frames[frames.length - 1].type).toBe('complete');
    const events = await waitForEnd(flex, runId);
    expectEndedOnce(events, 'complete');
    expect(indexOf(events, (e) => e.type === 'node_start')).toBeGreaterThan(
      indexOf(events, (e) => e.type === 'run_resumed'),
    );
  }, 60_000);

  it('a rejection while paused is recorded and takes effect on resume: the run fails then, not before', async () => {
    const runId = await pausedWhileWaiting();
    await resolve(operator, runId, 'hitl-1', 'reject');
    const decided = await waitForEvent(flex, runId, (e) => e.type === 'hitl_resolved');
    await executorSettled(flex, decided.position);
    expect(types(await runEvents(flex, runId))).not.toContain('run_failed');
    expect(await status(runId)).toBe('paused');

    const frames = await (await resume(client, runId, 1)).frames;
    expect(frames[frames.length - 1]).toMatchObject({
      type: 'run_failed',
      payload: { code: 'hitl_rejected' },
    });
    const events = await waitForEnd(flex, runId);
    expectEndedOnce(events, 'run_failed');
    expect(types(events)).not.toContain('node_start');
  }, 60_000);

  it('human gate: a replan asked while a HITL request is pending waits for the decision (replan_deferred), then runs on plan v2', async () => {
    const run = await openRun(client, envelopeWithPolicies([review, rethink]));
    await waitForEvent(flex, run.runId, (e) => e.type === 'hitl_request');
    expect(types(await trigger(operator, run.runId, 'rethink'))).toEqual([
      'policy_triggered',
      'replan_deferred',
    ]);
    const deferred = await waitForEvent(flex, run.runId, (e) => e.type === 'replan_deferred');
    expect(deferred.payload).toMatchObject({
      waitingFor: ['hitl-1'],
      policyId: 'rethink',
      trigger: { kind: 'manual', policyId: 'rethink' },
    });
    await executorSettled(flex, deferred.position);
    const before = await runEvents(flex, run.runId);
    expect(before.filter(isReplan)).toEqual([]);
    expect(types(before)).not.toContain('node_start');
    expect(await status(run.runId)).toBe('awaiting_hitl');

    expect(await resolve(operator, run.runId, 'hitl-1', 'approve')).toMatchObject({
      ok: true,
      takesEffect: 'now',
    });
    const frames = await run.frames;
    expect(frames[frames.length - 1].type).toBe('complete');
    const events = await waitForEnd(flex, run.runId);
    expectEndedOnce(events, 'complete');
    const at = (match: (e: { type: string; payload: unknown }) => boolean) => indexOf(events, match);
    expect(at((e) => e.type === 'hitl_resolved')).toBeLessThan(at(isReplan));
    expect(at(isReplan)).toBeLessThan(at((e) => e.type === 'plan_updated'));
    expect(events.filter(isReplan)).toHaveLength(1);
    expect(events.find(isReplan)?.payload).toMatchObject({
      replan: { trigger: { kind: 'manual', policyId: 'rethink' } },
    });
    expect(payloads(events, 'complete')[0]).toMatchObject({ planVersion: 2 });
  }, 60_000);

  it('human gate: a rejection of the pending request ends the run, and the replan waiting for it is never asked', async () => {
    const run = await openRun(client, envelopeWithPolicies([review, rethink]));
    await waitForEvent(flex, run.runId, (e) => e.type === 'hitl_request');
    await trigger(operator, run.runId, 'rethink');
    await resolve(operator, run.runId, 'hitl-1', 'reject');
    const frames = await run.frames;
    expect(frames[frames.length - 1]).toMatchObject({
      type: 'run_failed',
      payload: { code: 'hitl_rejected' },
    });
    const events = await waitForEnd(flex, run.runId);
    expectEndedOnce(events, 'run_failed');
    expect(events.filter(isReplan)).toEqual([]);
  }, 60_000);

  it('a manual replan of a paused run leaves it paused; the resume names the new plan version', async () => {
    const brand = {
      id: 'brand',
      trigger: { kind: 'onNodeComplete', selector: { kind: 'structuring' } },
      action: { type: 'pause', reason: 'brand check' },
    };
    const run = await openRun(client, envelopeWithPolicies([brand, rethink]));
    const rested = await run.frames;
    expect(rested[rested.length - 1].type).toBe('run_paused');
    expect(types(await trigger(operator, run.runId, 'rethink'))).toEqual([
      'policy_triggered',
      'plan_requested',
    ]);
    const updated = await waitForEvent(flex, run.runId, (e) => e.type === 'plan_updated');
    await executorSettled(flex, updated.position);
    const afterReplan = await runEvents(flex, run.runId);
    expect(types(afterReplan.slice(indexOf(afterReplan, (e) => e.id === updated.id)))).toEqual([
      'plan_updated',
    ]);
    expect(await status(run.runId)).toBe('paused');

    const stale = await resume(client, run.runId, 1);
    expect(stale).toMatchObject({ status: 409, body: { error: { code: 'stale_plan_version' } } });
    const frames = await (await resume(client, run.runId, 2)).frames;
    expect(frames[0].type).toBe('run_resumed');
    expect(frames[frames.length - 1].type).toBe('complete');
    expectEndedOnce(await waitForEnd(flex, run.runId), 'complete');
  }, 60_000);

  it('a parallel lane raising HITL while the run is paused: resumed, the run waits for that request and completes only once it is decided', async () => {
    closeGate();
    const holdLane1 = {
      id: 'hold_lane_1',
      trigger: { kind: 'onNodeComplete', selector: { nodeId: 'execution-1' } },
      action: { type: 'pause', reason: 'look at lane 1' },
    };
    const checkLane2 = {
      id: 'check_lane_2',
      trigger: { kind: 'onNodeComplete', selector: { nodeId: 'execution-1-lane-2' } },
      action: { type: 'hitl', rationale: 'Check lane 2' },
    };
    const run = await openRun(client, sevenVariants([holdLane1, checkLane2], '[gate]'));
    await waitForEvent(flex, run.runId, (e) => e.type === 'run_paused');
    releaseLane2();
    const request = await waitForEvent(flex, run.runId, (e) => e.type === 'hitl_request');
    expect(request.payload).toMatchObject({ policyId: 'check_lane_2', nodeId: 'execution-1-lane-2' });
    await run.frames;

    const resumed = await resume(client, run.runId, 1);
    expect(resumed.status).toBe(200);
    const back = await waitForEvent(flex, run.runId, (e) => e.type === 'run_resumed');
    await executorSettled(flex, back.position);
    expect(types(await runEvents(flex, run.runId))).not.toContain('complete');
    expect(await status(run.runId)).toBe('awaiting_hitl');

    await resolve(operator, run.runId, (request.payload as { requestId: string }).requestId, 'approve');
    const frames = await resumed.frames;
    expect(frames[frames.length - 1].type).toBe('complete');
    const events = await waitForEnd(flex, run.runId);
    expectEndedOnce(events, 'complete');
    expect(indexOf(events, (e) => e.type === 'hitl_resolved')).toBeLessThan(
      indexOf(events, (e) => e.type === 'complete'),
    );
    expect(
      payloads<{ output: { copyVariants: unknown[] } }>(events, 'complete')[0].output.copyVariants,
    ).toHaveLength(7);
  }, 60_000);

  it('a branched plan whose lane 2 fails for good replans from that lane alone: lane 1 keeps its output, no lane is doubled', async () => {
    const run = await openRun(client, sevenVariants([], '[lane-2 down]'));
    const frames = await run.frames;
    expect(frames[frames.length - 1].type).toBe('complete');
    const events = await waitForEnd(flex, run.runId);
    expectEndedOnce(events, 'complete');
    const starts = payloads<{ nodeId: string; capabilityId?: string }>(events, 'node_start');
    expect(starts.filter((s) => s.nodeId === 'execution-1')).toHaveLength(1);
    expect(events.filter(isReplan)).toHaveLength(1);
    expect(types(events)).not.toContain('plan_rejected');
    const updated = payloads<{ plan: { nodes: Array<{ id: string; kind: string; capabilityId?: string }> } }>(
      events,
      'plan_updated',
    )[0];
    const lanes = updated.plan.nodes.filter((n) => n.kind === 'execution');
    expect(lanes.map((n) => [n.id, n.capabilityId])).toEqual([
      ['execution-1', WRITER],
      ['execution-1-lane-2', DIRECT],
    ]);
    expect(updated.plan.nodes.filter((n) => n.kind === 'branch')).toHaveLength(7);
    expect(updated.plan.nodes.some((n) => n.id.endsWith('-v2'))).toBe(false);
    expect(
      payloads<{ output: { copyVariants: unknown[] } }>(events, 'complete')[0].output.copyVariants,
    ).toHaveLength(7);
  }, 60_000);

  it('the replanned lane failing too: its fallback HITL is raised, and the operator’s output completes the run', async () => {
    const run = await openRun(client, sevenVariants([], '[lane-2 down] [direct down]'));
    const request = await waitForEvent(flex, run.runId, (e) => e.type === 'hitl_request');
    expect(request.payload).toMatchObject({
      mode: 'node_output',
      nodeId: 'execution-1-lane-2',
      artifact: { fallbackNodeId: 'fallback-1-lane-2' },
    });
    const sofar = await runEvents(flex, run.runId);
    const lane1 = payloads<{ nodeId: string; output: { copyVariants: unknown[] } }>(
      sofar,
      'node_complete',
    ).find((c) => c.nodeId === 'execution-1');
    const count = 7 - (lane1?.output.copyVariants.length ?? 0);
    const copyVariants = Array.from({ length: count }, (_, i) => ({
      headline: `Operator take ${i + 1}`,
      body: `Written by an operator for lane 2, take ${i + 1}.`,
      callToAction: 'Join us',
    }));
    await resolve(operator, run.runId, (request.payload as { requestId: string }).requestId, 'approve', {
      copyVariants,
    });
    const frames = await run.frames;
    expect(frames[frames.length - 1].type).toBe('complete');
    const events = await waitForEnd(flex, run.runId);
    expectEndedOnce(events, 'complete');
    expect(events.filter(isReplan)).toHaveLength(1);
    expect(types(events)).not.toContain('plan_rejected');
    expect(
      payloads<{ output: { copyVariants: unknown[] } }>(events, 'complete')[0].output.copyVariants,
    ).toHaveLength(7);
  }, 60_000);
});
