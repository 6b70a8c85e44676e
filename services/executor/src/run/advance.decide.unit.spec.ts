import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeEnvelope, type PlanGraph, type TaskEnvelope } from '@flex/contracts';
import { evolveRun, initialRunState } from '@flex/run-model';
import { givenEvents } from '@flex/testing';
import { decideAdvance } from './advance.decide';
import { decideInvocation } from './invoke.decide';

const raw = JSON.parse(readFileSync(join(__dirname, '../../../../examples/envelope.json'), 'utf8'));
const normalized = normalizeEnvelope(raw);
if (!normalized.ok) throw new Error('sample envelope must normalize');
const envelope: TaskEnvelope = normalized.envelope;

const plan: PlanGraph = {
  planVersion: 1,
  nodes: [
    {
      id: 'structuring-1',
      kind: 'structuring',
      label: 'Strategy',
      capabilityId: 'S.brief',
      inputFacets: ['objectiveBrief'],
      outputFacets: ['writerBrief'],
    },
    {
      id: 'execution-1',
      kind: 'execution',
      label: 'Writer',
      capabilityId: 'W.write',
      inputFacets: ['writerBrief'],
      outputFacets: ['copyVariants'],
    },
    {
      id: 'fallback-1',
      kind: 'fallback',
      label: 'HITL',
      inputFacets: [],
      outputFacets: ['copyVariants'],
      fallbackFor: 'execution-1',
    },
  ],
  edges: [
    { from: 'structuring-1', to: 'execution-1' },
    { from: 'execution-1', to: 'fallback-1' },
  ],
  metadata: { plannerId: 'test', plannerVersion: '1', determinism: 'full', inputHash: 'x'.repeat(64) },
};

const variants = [
  { headline: 'Culture', body: 'Our team culture.', callToAction: 'Join us' },
  { headline: 'Growth', body: 'Career growth.', callToAction: 'Apply now' },
];

const history = (...more: Array<{ type: string; payload: unknown }>) =>
  givenEvents('run-r1', [
    {
      type: 'start',
      payload: { runId: 'r1', envelope, normalization: [], owner: { principal: 'tok_a', role: 'client' } },
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
    ...more,
  ]).reduce(evolveRun, initialRunState());

const now = new Date('2026-01-01T01:00:00.000Z');

describe('executor: advance', () => {
  it('given a new plan, starts only the nodes whose inputs exist', () => {
    expect(decideAdvance(history(), now).events).toEqual([
      {
        type: 'node_start',
        payload: {
          nodeId: 'structuring-1',
          capabilityId: 'S.brief',
          kind: 'structuring',
          attempt: 1,
          idempotencyKey: 'r1:structuring-1:1',
        },
      },
    ]);
  });

  it('given the first node complete, starts the next and never the standby fallback', () => {
    const state = history(
      {
        type: 'node_start',
        payload: { nodeId: 'structuring-1', kind: 'structuring', attempt: 1, idempotencyKey: 'k' },
      },
      {
        type: 'node_complete',
        payload: {
          nodeId: 'structuring-1',
          attempt: 1,
          output: { writerBrief: { angle: 'a', keyPoints: [], constraints: [] } },
          durationMs: 5,
        },
      },
    );
    expect(
      decideAdvance(state, now).events.map((e) => [e.type, (e.payload as { nodeId: string }).nodeId]),
    ).toEqual([['node_start', 'execution-1']]);
  });

  it('given the main path complete, composes the caller-declared output and completes', () => {
    const state = history(
      {
        type: 'node_start',
        payload: { nodeId: 'structuring-1', kind: 'structuring', attempt: 1, idempotencyKey: 'k' },
      },
      {
        type: 'node_complete',
        payload: {
          nodeId: 'structuring-1',
          attempt: 1,
          output: { writerBrief: { angle: 'a', keyPoints: [], constraints: [] } },
          durationMs: 5,
        },
      },
      {
        type: 'node_start',
        payload: { nodeId: 'execution-1', kind: 'execution', attempt: 1, idempotencyKey: 'k' },
      },
      {
        type: 'node_complete',
        payload: { nodeId: 'execution-1', attempt: 1, output: { copyVariants: variants }, durationMs: 5 },
      },
    );
    expect(decideAdvance(state, now).events).toEqual([
      {
        type: 'complete',
        payload: {
          output: { copyVariants: variants },
          planVersion: 1,
          satisfactionScore: 1,
          observedSatisfaction: 1,
        },
      },
    ]);
  });

  it('given an output that breaks the caller schema, never completes: the writer it is blamed on is retried with the errors', () => {
    const state = history(
      {
        type: 'node_start',
        payload: { nodeId: 'structuring-1', kind: 'structuring', attempt: 1, idempotencyKey: 'k' },
      },
      { type: 'node_complete', payload: { nodeId: 'structuring-1', attempt: 1, output: {}, durationMs: 5 } },
      {
        type: 'node_start',
        payload: { nodeId: 'execution-1', kind: 'execution', attempt: 1, idempotencyKey: 'k' },
      },
      {
        type: 'node_complete',
        payload: {
          nodeId: 'execution-1',
          attempt: 1,
          output: { copyVariants: [variants[0]] },
          durationMs: 5,
        },
      },
    );
    const events = decideAdvance(state, now).events;
    expect(events.map((e) => e.type)).toEqual(['validation_error', 'node_error']);
    expect(events[0].payload).toMatchObject({
      scope: 'final_output',
      nodeId: 'execution-1',
      attempt: 1,
      errors: [{ path: '/copyVariants', keyword: 'minItems' }],
    });
    expect(events[1].payload).toMatchObject({
      nodeId: 'execution-1',
      attempt: 1,
      error: { code: 'output_invalid', retryable: true },
      willRetry: true,
    });
  });

  it('given an output missing a property no node produces, fails the run with validation_error: no repair could fix it', () => {
    const state = history(
      {
        type: 'node_start',
        payload: { nodeId: 'structuring-1', kind: 'structuring', attempt: 1, idempotencyKey: 'k' },
      },
      { type: 'node_complete', payload: { nodeId: 'structuring-1', attempt: 1, output: {}, durationMs: 5 } },
      {
        type: 'node_start',
        payload: { nodeId: 'execution-1', kind: 'execution', attempt: 1, idempotencyKey: 'k' },
      },
      { type: 'node_complete', payload: { nodeId: 'execution-1', attempt: 1, output: {}, durationMs: 5 } },
    );
    const events = decideAdvance(state, now).events;
    expect(events.map((e) => e.type)).toEqual(['validation_error', 'run_failed']);
    expect(events[0].payload).toEqual({
      scope: 'final_output',
      errors: [
        { path: '/copyVariants', keyword: 'required', message: "must have required property 'copyVariants'" },
      ],
    });
    expect(events[1].payload).toMatchObject({ code: 'output_invalid' });
  });

  it('waits for a retry that is not due, then starts the next attempt', () => {
    const state = history(
      {
        type: 'node_start',
        payload: { nodeId: 'structuring-1', kind: 'structuring', attempt: 1, idempotencyKey: 'k' },
      },
      {
        type: 'node_error',
        payload: {
          nodeId: 'structuring-1',
          attempt: 1,
          error: { code: 'TIMEOUT', message: 't', retryable: true },
          willRetry: true,
          retryInMs: 500,
        },
      },
    );
    const retryAt = Date.parse('2026-01-01T00:00:04.000Z') + 500;
    expect(decideAdvance(state, new Date(retryAt - 200))).toEqual({
      events: [],
      effects: [{ type: 'wake', inMs: 200 }],
    });
    expect(decideAdvance(state, new Date(retryAt)).events).toEqual([
      {
        type: 'node_start',
        payload: {
          nodeId: 'structuring-1',
          capabilityId: 'S.brief',
          kind: 'structuring',
          attempt: 2,
          idempotencyKey: 'r1:structuring-1:2',
        },
      },
    ]);
  });

  it('fails the run when a node failed for good and no other capability produces its outputs', () => {
    const state = history(
      {
        type: 'node_start',
        payload: { nodeId: 'structuring-1', kind: 'structuring', attempt: 3, idempotencyKey: 'k' },
      },
      {
        type: 'node_error',
        payload: {
          nodeId: 'structuring-1',
          attempt: 3,
          error: { code: 'boom', message: 'agent crashed', retryable: true },
          willRetry: false,
        },
      },
    );
    expect(decideAdvance(state, now, { fallbacks: [] }).events).toEqual([
      {
        type: 'run_failed',
        payload: {
          code: 'node_failed',
          nodeId: 'structuring-1',
          reason: 'structuring-1 failed after 3 attempt(s): agent crashed',
        },
      },
    ]);
  });
});

describe('executor: invocation outcome', () => {
  const running = history({
    type: 'node_start',
    payload: { nodeId: 'structuring-1', kind: 'structuring', attempt: 1, idempotencyKey: 'k' },
  });
  const retry = { maxAttempts: 2, backoffMs: (a: number) => 100 * a };

  it('records an output for the live attempt only', () => {
    const ok = { ok: true as const, output: { writerBrief: {} }, durationMs: 3 };
    expect(decideInvocation(running, 'structuring-1', 1, ok, retry).map((e) => e.type)).toEqual([
      'node_complete',
    ]);
    expect(decideInvocation(running, 'structuring-1', 2, ok, retry)).toEqual([]);
    expect(decideInvocation(running, 'execution-1', 1, ok, retry)).toEqual([]);
  });

  it('reports an invalid output as validation_error + node_error with a retry', () => {
    const bad = {
      ok: false as const,
      durationMs: 3,
      error: { code: 'invalid_output', message: 'm', retryable: true },
      outputErrors: [{ path: '/writerBrief', message: 'required' }],
    };
    const events = decideInvocation(running, 'structuring-1', 1, bad, retry);
    expect(events.map((e) => e.type)).toEqual(['validation_error', 'node_error']);
    expect(events[0].payload).toMatchObject({ scope: 'capability_output', nodeId: 'structuring-1' });
    expect(events[1].payload).toMatchObject({ willRetry: true, retryInMs: 100 });
  });

  it('does not retry a non-retryable error', () => {
    const bad = {
      ok: false as const,
      durationMs: 3,
      error: { code: 'invalid_input', message: 'm', retryable: false },
    };
    expect(decideInvocation(running, 'structuring-1', 1, bad, retry)[0].payload).toMatchObject({
      willRetry: false,
    });
  });
});
