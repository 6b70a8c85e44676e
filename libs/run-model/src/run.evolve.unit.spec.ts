import type { PlanGraph } from '@flex/contracts';
import { givenEvents } from '@flex/testing';
import { evolveRun } from './run.evolve';
import { initialRunState, runMetadata, type RunState } from './run.state';

const plan: PlanGraph = {
  planVersion: 1,
  nodes: [
    {
      id: 'write',
      kind: 'execution',
      label: 'Write',
      capabilityId: 'W.write',
      inputFacets: [],
      outputFacets: ['copyVariants'],
    },
  ],
  edges: [],
  metadata: { plannerId: 't', plannerVersion: '1', determinism: 'full', inputHash: 'x'.repeat(64) },
};
const base = [
  {
    type: 'start',
    payload: {
      runId: 'r1',
      envelope: { objective: 'o', inputs: {}, outputContract: { schema: { type: 'object' } } },
      normalization: [],
      owner: { principal: 'p', role: 'client' },
    },
  },
  { type: 'plan_requested', payload: { attempt: 1, reason: 'initial', policyKeys: [] } },
  {
    type: 'plan_generated',
    payload: {
      planVersion: 1,
      plan,
      nodes: [],
      diagnostics: { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] },
      planHash: 'h',
      metadata: plan.metadata,
    },
  },
];
const fold = (...more: Array<{ type: string; payload: unknown }>): RunState =>
  givenEvents('run-r1', [...base, ...more]).reduce(evolveRun, initialRunState());
const approval = {
  type: 'hitl_request',
  payload: {
    requestId: 'hitl-1',
    policyId: 'p',
    rationale: 'r',
    mode: 'approval',
    action: { type: 'hitl', rejectAction: { type: 'pause' } },
  },
};

describe('evolveRun: HITL, pause and fallback state', () => {
  it('an accepted plan clears the pending plan request', () => {
    const state = fold();
    expect(state.status === 'running' && state.planRequest).toBeUndefined();
  });

  it('a HITL request holds the run until every request is resolved, and remembers its hitl action', () => {
    const waiting = fold(approval);
    expect(waiting).toMatchObject({
      status: 'awaiting_hitl',
      hitlCount: 1,
      hitl: {
        'hitl-1': { status: 'pending', mode: 'approval', action: { rejectAction: { type: 'pause' } } },
      },
    });
    const resolved = fold(approval, {
      type: 'hitl_resolved',
      payload: { requestId: 'hitl-1', decision: 'reject', operator: 'op' },
    });
    expect(resolved).toMatchObject({
      status: 'running',
      hitl: { 'hitl-1': { status: 'resolved', decision: 'reject' } },
    });
  });

  it('a node-output request parks the node; a pause and a resume return to where the run was', () => {
    const nodeRequest = {
      type: 'hitl_request',
      payload: { requestId: 'hitl-1', nodeId: 'write', rationale: 'r', mode: 'node_output' },
    };
    const paused = fold(nodeRequest, { type: 'run_paused', payload: { reason: 'x', snapshot: {} } });
    expect(paused).toMatchObject({
      status: 'paused',
      pause: { reason: 'x' },
      hitl: { 'hitl-1': { status: 'pending' } },
      nodes: { write: { status: 'awaiting_hitl', hitlRequestId: 'hitl-1' } },
    });
    const resumed = fold(
      nodeRequest,
      { type: 'run_paused', payload: { reason: 'x', snapshot: {} } },
      { type: 'run_resumed', payload: { expectedPlanVersion: 1, resumedBy: 'op' } },
    );
    expect(resumed.status).toBe('awaiting_hitl');
  });

  it('a node_start on another capability marks the fallback and the attempt its retries count from', () => {
    const state = fold(
      {
        type: 'node_start',
        payload: {
          nodeId: 'write',
          capabilityId: 'W.write',
          kind: 'execution',
          attempt: 2,
          idempotencyKey: 'k',
        },
      },
      {
        type: 'node_start',
        payload: {
          nodeId: 'write',
          capabilityId: 'W.alt',
          kind: 'execution',
          attempt: 3,
          idempotencyKey: 'k',
        },
      },
      {
        type: 'node_start',
        payload: {
          nodeId: 'write',
          capabilityId: 'W.alt',
          kind: 'execution',
          attempt: 4,
          idempotencyKey: 'k',
        },
      },
    );
    expect(state.status !== 'none' && state.nodes.write).toMatchObject({
      capabilityId: 'W.alt',
      fallbackCapabilityId: 'W.alt',
      fallbackFromAttempt: 3,
    });
  });

  it('counts replans and records each policy firing once per key', () => {
    const state = fold(
      {
        type: 'policy_triggered',
        payload: {
          policyId: 'q',
          trigger: { kind: 'onNodeComplete', key: 'onNodeComplete:e9' },
          actionDetails: { type: 'replan' },
          decision: { result: 'DENY', reason: 'r', severity: 'hard' },
        },
      },
      {
        type: 'plan_requested',
        payload: {
          attempt: 2,
          reason: 'replan',
          policyKeys: [],
          replan: { trigger: {}, previousVersion: 1, completedNodeIds: [] },
        },
      },
    );
    expect(state).toMatchObject({ replans: 1, policyFirings: { 'q|onNodeComplete:e9': 1 } });
  });
});

describe('evolveRun: the run’s trace', () => {
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const traced = () => {
    const [start, ...rest] = givenEvents('run-r1', base);
    return [{ ...start, metadata: { ...start.metadata, traceparent } }, ...rest];
  };

  it('keeps the traceparent of `start`, and stamps it on what any cause makes the run append', () => {
    const state = traced().reduce(evolveRun, initialRunState());
    expect(state).toMatchObject({ traceparent });
    // An operator's event, or one written before runs kept their trace, carries none of its own.
    const cause = { id: 'e9', metadata: { correlationId: 'c' } };
    expect(runMetadata(state, cause, 'executor')).toMatchObject({ traceparent, causationId: 'e9' });
  });

  it('a run started without a trace has none, and passes on what its cause carries', () => {
    const state = fold();
    expect(state).not.toHaveProperty('traceparent');
    const cause = { id: 'e9', metadata: { correlationId: 'c', traceparent } };
    expect(runMetadata(state, cause, 'executor').traceparent).toBe(traceparent);
    expect(
      runMetadata(state, { id: 'e9', metadata: { correlationId: 'c' } }, 'x').traceparent,
    ).toBeUndefined();
  });
});
