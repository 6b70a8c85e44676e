import type { CapabilityRegistration, RuntimePolicy } from '@flex/contracts';
import { decideHitlResolve, decideResume, resumeDecider } from '@flex/run-model';
import {
  brief,
  completed,
  expectValidPayloads,
  fold,
  runEvents,
  started,
  variants,
  writerDone,
} from '../test-support/run.fixtures';
import { decideAdvance } from './advance.decide';
import { decideInvocation } from './invoke.decide';
import { decideAfterHitl, decideOnEvent } from './run.decide';

const limits = { maxReplans: 2, maxHitlRequests: 5 };
const now = new Date('2026-01-01T00:01:00.000Z');
const types = (events: ReadonlyArray<{ type: string }>) => events.map((e) => e.type);
type Given = { type: string; payload: unknown };
const asGiven = (events: ReadonlyArray<{ type: string; payload: unknown }>): Given[] =>
  events.map((e) => ({ type: e.type, payload: e.payload }));
const resolved = (requestId: string, decision: 'approve' | 'reject', payload?: unknown) => ({
  type: 'hitl_resolved',
  payload: { requestId, decision, operator: 'op', ...(payload ? { payload } : {}) },
});

/** Run the executor's reaction to a resolution and return the events it decides. */
function afterResolution(
  history: Given[],
  requestId: string,
  decision: 'approve' | 'reject',
  payload?: unknown,
) {
  const event = resolved(requestId, decision, payload);
  const state = fold([...history, event]);
  return decideAfterHitl(state, event.payload as never, now, { limits, fallbacks: [] }).events;
}

describe('executor: HITL follow-ups', () => {
  const review: RuntimePolicy = { id: 'review', trigger: { kind: 'onStart' }, action: { type: 'hitl' } };

  function waiting(policies: RuntimePolicy[]): Given[] {
    const base = runEvents(policies);
    const decided = decideOnEvent(fold(base), [{ kind: 'onStart' }], now, { limits }).events;
    return [...base, ...asGiven(decided)];
  }

  it('a HITL request puts the run in awaiting_hitl and starts nothing until it is resolved', () => {
    const history = waiting([review]);
    const state = fold(history);
    expect(state.status).toBe('awaiting_hitl');
    expect(decideAdvance(state, now).events).toEqual([]);
  });

  it('approval defaults to resume: the run goes on', () => {
    expect(types(afterResolution(waiting([review]), 'hitl-1', 'approve'))).toEqual(['node_start']);
  });

  it('rejection defaults to fail', () => {
    const events = afterResolution(waiting([review]), 'hitl-1', 'reject');
    expect(events).toEqual([
      {
        type: 'run_failed',
        payload: { code: 'hitl_rejected', reason: 'an operator rejected HITL request hitl-1' },
      },
    ]);
  });

  it('nested follow-ups: an approval asks a second operator, whose rejection runs its own rejectAction (pause)', () => {
    const nested: RuntimePolicy = {
      id: 'two_step',
      trigger: { kind: 'onStart' },
      action: {
        type: 'hitl',
        approveAction: {
          type: 'hitl',
          rationale: 'Second look',
          rejectAction: { type: 'pause', reason: 'escalated' },
        },
      },
    };
    const history = waiting([nested]);
    const second = afterResolution(history, 'hitl-1', 'approve');
    expect(types(second)).toEqual(['hitl_request']);
    expect(second[0].payload).toMatchObject({
      requestId: 'hitl-2',
      rationale: 'Second look',
      action: { type: 'hitl', rejectAction: { type: 'pause' } },
    });
    expectValidPayloads(second);
    const afterSecond = [...history, resolved('hitl-1', 'approve'), ...asGiven(second)];
    expect(fold(afterSecond).status).toBe('awaiting_hitl');
    const paused = afterResolution(afterSecond, 'hitl-2', 'reject');
    expect(types(paused)).toEqual(['run_paused']);
    expect(paused[0].payload).toMatchObject({ reason: 'escalated', policyId: 'two_step' });
  });

  it('resolving: a second resolution is 409, an unknown request 404, and nothing is decided', () => {
    const history = waiting([review]);
    const request = { runId: 'r1', requestId: 'hitl-1', decision: 'approve' as const };
    expect(decideHitlResolve(fold(history), request, 'op')).toEqual({
      effects: [],
      events: [
        { type: 'hitl_resolved', payload: { requestId: 'hitl-1', decision: 'approve', operator: 'op' } },
      ],
    });
    const once = fold([...history, resolved('hitl-1', 'approve')]);
    expect(decideHitlResolve(once, request, 'op')).toMatchObject({
      effects: [{ type: 'refuse', code: 'hitl_already_resolved' }],
    });
    expect(decideHitlResolve(once, { ...request, requestId: 'hitl-9' }, 'op')).toMatchObject({
      effects: [{ type: 'refuse' }],
    });
    expect(decideHitlResolve({ status: 'none' }, request, 'op')).toMatchObject({
      effects: [{ type: 'refuse', code: 'run_not_found' }],
    });
  });

  it('HITL requests are bounded: past the limit the run fails instead of asking again', () => {
    const bounded = decideOnEvent(fold(runEvents([review])), [{ kind: 'onStart' }], now, {
      limits: { ...limits, maxHitlRequests: 0 },
    }).events;
    expect(types(bounded)).toEqual(['policy_triggered', 'run_failed']);
    expect(bounded[1].payload).toMatchObject({ code: 'hitl_exhausted' });
  });
});

describe('executor: pause and resume', () => {
  const brand: RuntimePolicy = {
    id: 'brand',
    trigger: { kind: 'onNodeComplete', selector: { nodeId: 'structuring-1' } },
    action: { type: 'pause' },
  };
  const beforePause: Given[] = [
    ...runEvents([brand]),
    started('structuring-1'),
    completed('structuring-1', brief),
  ];
  const pauseEvents = decideOnEvent(
    fold(beforePause),
    [{ kind: 'onNodeComplete', nodeId: 'structuring-1', eventId: `run-r1-e${beforePause.length}` }],
    now,
    { limits },
  ).events;
  const paused = [...beforePause, ...asGiven(pauseEvents)];

  it('a paused run starts nothing; resume needs the current plan version and a paused run', () => {
    const state = fold(paused);
    expect(state.status).toBe('paused');
    expect(decideAdvance(state, now).events).toEqual([]);
    expect(decideResume(state, 'r1', 2, 'op')).toMatchObject({
      effects: [{ type: 'refuse', code: 'stale_plan_version' }],
    });
    expect(decideResume(fold(beforePause), 'r1', 1, 'op')).toMatchObject({
      effects: [{ type: 'refuse', code: 'invalid_run_state' }],
    });
    expect(decideResume({ status: 'none' }, 'r1', 1, 'op')).toMatchObject({ effects: [{ type: 'refuse' }] });
    expect(decideResume(state, 'r1', 1, 'op')).toEqual({
      effects: [],
      events: [{ type: 'run_resumed', payload: { expectedPlanVersion: 1, resumedBy: 'op' } }],
    });
  });

  it('of two resumes of one pause one wins, even when the run pauses again before the other decides again', () => {
    const first = resumeDecider('r1', 1, 'op1', limits, () => now);
    const second = resumeDecider('r1', 1, 'op2', limits, () => now);
    const state = fold(paused);
    expect(first(state).events).toHaveLength(1);
    // The second decided on the same state; its append conflicts with the first's.
    expect(second(state).events).toHaveLength(1);
    const pausedAgain = fold([
      ...paused,
      { type: 'run_resumed', payload: { expectedPlanVersion: 1, resumedBy: 'op1' } },
      { type: 'run_paused', payload: { reason: 'again', policyId: 'brand' } },
    ]);
    expect(pausedAgain).toMatchObject({ status: 'paused', pause: { reason: 'again' } });
    expect(second(pausedAgain)).toMatchObject({
      events: [],
      effects: [{ type: 'refuse', code: 'invalid_run_state' }],
    });
    // A resume that first sees the new pause resumes it; one that names the first pause does not.
    expect(resumeDecider('r1', 1, 'op3', limits, () => now)(pausedAgain).events).toHaveLength(1);
    const firstPause = state.status === 'paused' ? state.pause.eventId : '';
    expect(resumeDecider('r1', 1, 'op4', limits, () => now, firstPause)(pausedAgain)).toMatchObject({
      effects: [{ type: 'refuse', code: 'invalid_run_state' }],
    });
    expect(resumeDecider('r1', 1, 'op5', limits, () => now, firstPause)(state).events).toHaveLength(1);
  });

  it('resume continues deterministically from the snapshot: the same nodes start as had the run never paused', () => {
    const resumed = fold([
      ...paused,
      { type: 'run_resumed', payload: { expectedPlanVersion: 1, resumedBy: 'op' } },
    ]);
    expect(resumed.status).toBe('running');
    const afterResume = decideOnEvent(resumed, [], now, { limits }).events;
    const neverPaused = decideAdvance(
      fold([...runEvents([]), started('structuring-1'), completed('structuring-1', brief)]),
      now,
    ).events;
    expect(afterResume).toEqual(neverPaused);
    expect(afterResume).toEqual([
      {
        type: 'node_start',
        payload: {
          nodeId: 'execution-1',
          capabilityId: 'W.write',
          kind: 'execution',
          attempt: 1,
          idempotencyKey: 'r1:execution-1:1',
        },
      },
    ]);
  });

  it('work in flight when the run paused is still recorded', () => {
    const inFlight = fold([
      ...runEvents([]),
      started('structuring-1'),
      { type: 'run_paused', payload: { reason: 'r', snapshot: {} } },
    ]);
    const ok = { ok: true as const, output: brief, durationMs: 1 };
    expect(
      types(decideInvocation(inFlight, 'structuring-1', 1, ok, { maxAttempts: 1, backoffMs: () => 0 })),
    ).toEqual(['node_complete']);
  });
});

describe('executor: retries → fallback capability → HITL fallback node', () => {
  const retry = { maxAttempts: 2, backoffMs: () => 100 };
  const alt: CapabilityRegistration = {
    capabilityId: 'W.alt',
    agentType: 'ai',
    version: '1',
    displayName: 'Alt writer',
    summary: 'Writes',
    inputContract: ['writerBrief'],
    outputContract: ['copyVariants'],
  };
  const human: CapabilityRegistration = { ...alt, capabilityId: 'A.human', agentType: 'human' };
  const boom = {
    ok: false as const,
    durationMs: 1,
    error: { code: 'boom', message: 'agent crashed', retryable: true },
  };
  const failedFor = (attempt: number, capabilityId?: string): Given => ({
    type: 'node_error',
    payload: {
      nodeId: 'execution-1',
      attempt,
      ...(capabilityId ? { capabilityId } : {}),
      error: boom.error,
      willRetry: false,
    },
  });
  const writerFailed: Given[] = [
    ...runEvents([]),
    started('structuring-1'),
    completed('structuring-1', brief),
    started('execution-1', 1),
    {
      type: 'node_error',
      payload: { nodeId: 'execution-1', attempt: 1, error: boom.error, willRetry: true, retryInMs: 100 },
    },
    started('execution-1', 2),
    failedFor(2),
  ];

  it('retries are spent: the executor asks for the registry view, then moves to another capability producing the same facets', () => {
    expect(decideAdvance(fold(writerFailed), now)).toEqual({
      events: [],
      effects: [{ type: 'need_registry' }],
    });
    const { events } = decideAdvance(fold(writerFailed), now, { fallbacks: [human, alt] });
    expect(events).toEqual([
      {
        type: 'node_start',
        payload: {
          nodeId: 'execution-1',
          capabilityId: 'W.alt',
          kind: 'execution',
          attempt: 3,
          idempotencyKey: 'r1:execution-1:3',
        },
      },
    ]);
  });

  it('the fallback capability gets its own retries', () => {
    const onAlt = fold([...writerFailed, started('execution-1', 3, 'W.alt')]);
    expect(decideInvocation(onAlt, 'execution-1', 3, boom, retry)[0].payload).toMatchObject({
      capabilityId: 'W.alt',
      willRetry: true,
    });
  });

  it('the fallback capability failing too: the plan’s fallback node asks an operator for the node output', () => {
    const altFailed = [
      ...writerFailed,
      started('execution-1', 3, 'W.alt'),
      started('execution-1', 4, 'W.alt'),
      failedFor(4, 'W.alt'),
    ];
    const { events } = decideAdvance(fold(altFailed), now, { fallbacks: [alt] });
    expect(types(events)).toEqual(['hitl_request']);
    expect(events[0].payload).toMatchObject({
      requestId: 'hitl-1',
      nodeId: 'execution-1',
      mode: 'node_output',
      contractSummary: { outputFacets: ['copyVariants'] },
      artifact: { fallbackNodeId: 'fallback-1' },
    });
    expectValidPayloads(events);
    const waiting = [...altFailed, ...asGiven(events)];
    expect(fold(waiting).status).toBe('awaiting_hitl');

    const invalid = decideHitlResolve(
      fold(waiting),
      { runId: 'r1', requestId: 'hitl-1', decision: 'approve', payload: { copyVariants: 'nope' } },
      'op',
      [{ path: '/copyVariants', message: 'must be array' }],
    );
    expect(invalid).toMatchObject({
      effects: [{ type: 'refuse', code: 'invalid_hitl_payload' }],
      events: [{ type: 'validation_error', payload: { scope: 'capability_output', nodeId: 'execution-1' } }],
    });
    const stillWaiting = fold([...waiting, ...asGiven(invalid.events)]);
    expect(stillWaiting.status === 'awaiting_hitl' && stillWaiting.hitl['hitl-1'].status).toBe('pending');

    const followUp = afterResolution(waiting, 'hitl-1', 'approve', { copyVariants: variants });
    expect(followUp[0]).toEqual({
      type: 'node_complete',
      payload: {
        nodeId: 'execution-1',
        capabilityId: 'W.alt',
        attempt: 4,
        output: { copyVariants: variants },
        durationMs: 0,
      },
    });
    expect(types(followUp)).toEqual(['node_complete', 'node_start']);
  });

  it('a failure replans when another capability could produce the outputs from other inputs, and replans remain', () => {
    const altFailed = [
      ...writerFailed,
      started('execution-1', 3, 'W.alt'),
      started('execution-1', 4, 'W.alt'),
      failedFor(4, 'W.alt'),
    ];
    const other: CapabilityRegistration = {
      ...alt,
      capabilityId: 'W.other',
      inputContract: ['objectiveBrief'],
    };
    const { events } = decideAdvance(fold(altFailed), now, {
      fallbacks: [alt, other],
      limits: { maxReplans: 1, maxHitlRequests: 5 },
    });
    expect(types(events)).toEqual(['plan_requested']);
    expect(events[0].payload).toMatchObject({
      reason: 'replan',
      replan: {
        trigger: { kind: 'node_failed', nodeId: 'execution-1', capabilityId: 'W.alt' },
        previousVersion: 1,
        completedNodeIds: ['structuring-1'],
      },
    });
    expectValidPayloads(events);
    expect(
      types(
        decideAdvance(fold(altFailed), now, {
          fallbacks: [alt, other],
          limits: { maxReplans: 0, maxHitlRequests: 5 },
        }).events,
      ),
    ).toEqual(['hitl_request']);
  });

  it('no fallback capability and no fallback node: the run fails with the node error', () => {
    const noStandby = writerFailed.map((e) =>
      e.type === 'plan_generated'
        ? {
            ...e,
            payload: {
              ...(e.payload as object),
              plan: {
                ...(e.payload as { plan: { nodes: Array<{ kind: string }> } }).plan,
                nodes: (e.payload as { plan: { nodes: Array<{ kind: string }> } }).plan.nodes.filter(
                  (n) => n.kind !== 'fallback',
                ),
              },
            },
          }
        : e,
    );
    expect(decideAdvance(fold(noStandby), now, { fallbacks: [] }).events).toEqual([
      {
        type: 'run_failed',
        payload: {
          code: 'node_failed',
          nodeId: 'execution-1',
          reason: 'execution-1 failed after 2 attempt(s): agent crashed',
        },
      },
    ]);
  });

  it('an invalid agent output never reaches the final output', () => {
    const bad = {
      ok: false as const,
      durationMs: 1,
      error: { code: 'invalid_output', message: 'bad', retryable: true },
      outputErrors: [{ path: '/copyVariants', message: 'must be array' }],
    };
    const state = fold([
      ...runEvents([]),
      started('structuring-1'),
      completed('structuring-1', brief),
      started('execution-1'),
    ]);
    const events = decideInvocation(state, 'execution-1', 1, bad, retry);
    expect(types(events)).toEqual(['validation_error', 'node_error']);
    const after = fold([
      ...runEvents([]),
      started('structuring-1'),
      completed('structuring-1', brief),
      started('execution-1'),
      ...asGiven(events),
    ]);
    expect(after.status !== 'none' && after.nodes['execution-1'].output).toBeUndefined();
    expect(decideAdvance(after, now).events.some((e) => e.type === 'complete')).toBe(false);
  });

  it('a human capability: the operator’s output completes the node', () => {
    void writerDone;
    const history = [
      ...runEvents([]),
      started('structuring-1'),
      completed('structuring-1', brief),
      started('execution-1', 1, 'A.human'),
      {
        type: 'hitl_request',
        payload: { requestId: 'hitl-1', nodeId: 'execution-1', rationale: 'human', mode: 'node_output' },
      },
    ];
    expect(fold(history).status).toBe('awaiting_hitl');
    const followUp = afterResolution(history, 'hitl-1', 'approve', { copyVariants: variants });
    expect(followUp[0]).toMatchObject({
      type: 'node_complete',
      payload: { nodeId: 'execution-1', capabilityId: 'A.human', output: { copyVariants: variants } },
    });
    expect(types(afterResolution(history, 'hitl-1', 'reject'))).toEqual(['run_failed']);
  });
});
