import type { PlanGraph } from '@flex/contracts';
import type { Frame, RunDetail } from '../api/types';
import { emptyRunView, foldFrame, type RunView } from './run-view';
import { shownNodeStatus, shownRunStatus } from './shown-status';

const hash = 'a'.repeat(64);
const plan = (version: number, ids: string[]): PlanGraph => ({
  planVersion: version,
  nodes: ids.map((id) => ({
    id,
    kind: 'execution',
    label: id,
    inputFacets: [],
    outputFacets: ['copyVariants'],
  })),
  edges: ids.slice(1).map((id, i) => ({ from: ids[i], to: id })),
  metadata: { plannerId: 'rule-based', plannerVersion: '1', determinism: 'full', inputHash: hash },
});
const accepted = { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] };

let position = 0;
const frame = (type: string, payload: unknown, extra: Partial<Frame> = {}): Frame =>
  ({
    type,
    payload,
    position: ++position,
    id: `e${position}`,
    runId: 'run_1',
    correlationId: 'c',
    timestamp: `2026-01-01T00:00:${String(position).padStart(2, '0')}.000Z`,
    ...extra,
  }) as Frame;
const fold = (...frames: Frame[]): RunView => frames.reduce(foldFrame, emptyRunView());

describe('foldFrame: the run page’s view of a run’s stream', () => {
  beforeEach(() => (position = 0));

  it('follows nodes through attempts, errors, validation errors and completion', () => {
    const view = fold(
      frame('plan_generated', {
        planVersion: 1,
        plan: plan(1, ['a', 'b']),
        nodes: [],
        planHash: hash,
        metadata: {},
        registry: {},
        diagnostics: accepted,
      }),
      frame('node_start', {
        nodeId: 'a',
        capabilityId: 'cap.a',
        kind: 'execution',
        attempt: 1,
        idempotencyKey: 'k',
      }),
      frame('validation_error', {
        scope: 'capability_output',
        nodeId: 'a',
        attempt: 1,
        errors: [{ path: '/x', message: 'bad', keyword: 'type' }],
      }),
      frame('node_error', {
        nodeId: 'a',
        attempt: 1,
        error: { code: 'invalid_output', message: 'bad', retryable: true },
        willRetry: true,
      }),
      frame('node_start', {
        nodeId: 'a',
        capabilityId: 'cap.a',
        kind: 'execution',
        attempt: 2,
        idempotencyKey: 'k2',
      }),
      frame('node_complete', { nodeId: 'a', attempt: 2, output: { copyVariants: [] }, durationMs: 5 }),
    );
    expect(view.status).toBe('running');
    expect(view.nodes.a.status).toBe('completed');
    expect(view.nodes.b.status).toBe('pending');
    expect(view.nodes.a.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        capabilityId: 'cap.a',
        error: expect.objectContaining({ code: 'invalid_output' }),
        willRetry: true,
        validationErrors: [{ scope: 'capability_output', path: '/x', message: 'bad', keyword: 'type' }],
      }),
      expect.objectContaining({ attempt: 2, output: { copyVariants: [] }, durationMs: 5 }),
    ]);
  });

  it('keeps every plan version, HITL requests with their decisions, and policy decisions (action or actionDetails)', () => {
    const decision = { result: 'DENY', reason: 'check first', severity: 'hard' };
    const view = fold(
      frame('plan_generated', {
        planVersion: 1,
        plan: plan(1, ['a']),
        nodes: [],
        planHash: hash,
        metadata: {},
        registry: {},
        diagnostics: accepted,
      }),
      frame('policy_triggered', {
        policyId: 'review',
        trigger: { kind: 'onStart' },
        action: { type: 'hitl' },
        decision,
      }),
      frame('hitl_request', { requestId: 'hitl-1', policyId: 'review', rationale: 'look', mode: 'approval' }),
      frame('hitl_resolved', { requestId: 'hitl-1', decision: 'approve', note: 'fine', operator: 'tok_1' }),
      frame('policy_triggered', {
        policyId: 'again',
        trigger: { kind: 'manual' },
        actionDetails: { type: 'replan' },
        decision,
      }),
      frame('plan_updated', {
        previousVersion: 1,
        version: 2,
        plan: plan(2, ['a', 'c']),
        nodes: [],
        trigger: { policyId: 'again' },
        planHash: hash,
        registry: {},
        diagnostics: accepted,
      }),
    );
    expect(view.plans.map((p) => [p.version, p.previousVersion])).toEqual([
      [1, undefined],
      [2, 1],
    ]);
    expect(view.hitl['hitl-1']).toMatchObject({ status: 'approved', note: 'fine', operator: 'tok_1' });
    expect(view.policies.map((p) => p.action?.type)).toEqual(['hitl', 'replan']);
    expect(view.status).toBe('running');
    expect(Object.keys(view.nodes)).toEqual(['a', 'c']);
    expect(view.plans.at(-1)?.plan.nodes.map((n) => n.id)).toEqual(['a', 'c']);
  });

  it('keeps the state of a node a new version drops (the one that failed and was routed around)', () => {
    const generated = {
      planVersion: 1,
      plan: plan(1, ['a', 'b']),
      nodes: [],
      planHash: hash,
      metadata: {},
      registry: {},
      diagnostics: accepted,
    };
    const updated = {
      previousVersion: 1,
      version: 2,
      plan: plan(2, ['a', 'c']),
      nodes: [],
      trigger: {},
      planHash: hash,
      registry: {},
      diagnostics: accepted,
    };
    const failure = { code: 'writer_down', message: 'down', retryable: true };
    const view = fold(
      frame('plan_generated', generated),
      frame('node_error', { nodeId: 'b', attempt: 1, error: failure, willRetry: false }),
      frame('plan_updated', updated),
    );
    expect(view.nodes.b.status).toBe('failed');
    expect(view.nodes.c.status).toBe('pending');
    expect(view.plans[0].finalStatuses).toEqual({ a: 'pending', b: 'failed' });
  });

  it('ends on complete, run_failed or run_cancelled, and ignores a frame it has seen', () => {
    const start = frame('plan_generated', {
      planVersion: 1,
      plan: plan(1, ['a']),
      nodes: [],
      planHash: hash,
      metadata: {},
      registry: {},
      diagnostics: accepted,
    });
    const done = fold(start, frame('complete', { output: { x: 1 }, planVersion: 1, satisfactionScore: 1 }));
    expect(done).toMatchObject({
      status: 'completed',
      ended: true,
      output: { x: 1 },
      satisfaction: { score: 1 },
    });
    expect(foldFrame(done, start)).toBe(done);
    const cancelled = fold(
      frame('hitl_request', { requestId: 'h', rationale: 'r' }),
      frame('run_cancelled', { cancelledBy: 'me', from: 'awaiting_hitl', closedHitlRequests: ['h'] }),
    );
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      hitl: { h: { status: 'closed' } },
      cancelled: { by: 'me' },
    });
    expect(fold(frame('run_failed', { code: 'x', reason: 'y' }))).toMatchObject({
      status: 'failed',
      failure: { code: 'x', reason: 'y' },
    });
  });

  it('closes a withdrawn HITL request, and the run runs again when none is left pending', () => {
    const view = fold(
      frame('plan_generated', { planVersion: 1, plan: plan(1, ['w']), nodes: [], diagnostics: accepted }),
      frame('hitl_request', {
        requestId: 'hitl-1',
        nodeId: 'w',
        rationale: 'w unreachable',
        mode: 'node_output',
      }),
    );
    expect(view.status).toBe('awaiting_hitl');
    const withdrawn = foldFrame(view, frame('hitl_withdrawn', { requestId: 'hitl-1', reason: 'W is back' }));
    expect(withdrawn.hitl['hitl-1']).toMatchObject({ status: 'closed' });
    expect(withdrawn.status).toBe('running');
  });

  it('pauses and resumes', () => {
    const paused = fold(frame('run_paused', { reason: 'hold', policyId: 'p', snapshot: {} }));
    expect(paused).toMatchObject({ status: 'paused', paused: { reason: 'hold' } });
    expect(foldFrame(paused, frame('run_resumed', { expectedPlanVersion: 1, resumedBy: 'me' })).status).toBe(
      'running',
    );
    const byOperator = fold(frame('run_paused', { reason: 'lunch', pausedBy: 'tok_1', snapshot: {} }));
    expect(byOperator.paused).toEqual({ reason: 'lunch', by: 'tok_1' });
  });
});

describe('shown statuses: the read model unless the stream knows better', () => {
  beforeEach(() => (position = 0));
  const detail = (status: string, node: string): RunDetail =>
    ({
      run: { status },
      nodes: [{ nodeId: 'a', status: node }],
      planVersions: [],
      hitlRequests: [],
      output: null,
    }) as unknown as RunDetail;

  it('prefers the read model as of a position, and the stream after it', () => {
    const view = fold(
      frame('plan_generated', {
        planVersion: 1,
        plan: plan(1, ['a']),
        nodes: [],
        planHash: hash,
        metadata: {},
        registry: {},
        diagnostics: accepted,
      }),
      frame('node_start', { nodeId: 'a', kind: 'execution', attempt: 1, idempotencyKey: 'k' }),
    );
    expect(shownNodeStatus(view, 'a', { detail: detail('running', 'skipped'), asOf: 2 })).toBe('skipped');
    expect(shownNodeStatus(view, 'a', { detail: detail('running', 'pending'), asOf: 1 })).toBe('running');
    expect(shownRunStatus(view, { detail: detail('awaiting_hitl', 'pending'), asOf: 2 })).toBe(
      'awaiting_hitl',
    );
    expect(shownRunStatus(view, undefined)).toBe('running');
  });
});
