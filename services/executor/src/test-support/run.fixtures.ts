import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  normalizeEnvelope,
  parseEventPayload,
  type PlanGraph,
  type RuntimePolicy,
  type TaskEnvelope,
} from '@flex/contracts';
import { evolveRun, initialRunState, type RunState } from '@flex/run-model';
import { givenEvents } from '@flex/testing';

const raw = JSON.parse(readFileSync(join(__dirname, '../../../../examples/envelope.json'), 'utf8'));
const normalized = normalizeEnvelope(raw);
if (!normalized.ok) throw new Error('sample envelope must normalize');

/** The sample envelope with the given runtime policies. */
export function envelopeWith(runtime: RuntimePolicy[] = []): TaskEnvelope {
  const envelope = normalized.ok ? normalized.envelope : (undefined as never);
  return { ...envelope, policies: { ...(envelope.policies ?? {}), runtime } };
}

/** strategy → writer → QA, with a HITL fallback node standing by for the writer. */
export const plan: PlanGraph = {
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
      id: 'validation-1',
      kind: 'validation',
      label: 'QA',
      capabilityId: 'Q.review',
      inputFacets: ['copyVariants'],
      outputFacets: ['qaFindings'],
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
    { from: 'execution-1', to: 'validation-1' },
    { from: 'execution-1', to: 'fallback-1' },
  ],
  metadata: { plannerId: 'test', plannerVersion: '1', determinism: 'full', inputHash: 'x'.repeat(64) },
};

export const variants = [
  { headline: 'Culture', body: 'Our team culture.', callToAction: 'Join us' },
  { headline: 'Growth', body: 'Career growth.', callToAction: 'Apply now' },
];

export const brief = { writerBrief: { angle: 'a', keyPoints: [], constraints: [] } };

export type Given = { type: string; payload: unknown; id?: string };

/** The run's events: start, plan request, the accepted plan, then `more`. */
export function runEvents(runtime: RuntimePolicy[], ...more: Given[]): Given[] {
  return [
    {
      type: 'start',
      payload: {
        runId: 'r1',
        envelope: envelopeWith(runtime),
        normalization: [],
        owner: { principal: 'tok_a', role: 'client' },
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
        planHash: 'h'.repeat(64),
        metadata: plan.metadata,
      },
    },
    ...more,
  ];
}

/** Given these events (ids `run-r1-e<n>`, one second apart from 00:00:00), the folded state. */
export function given(runtime: RuntimePolicy[], ...more: Given[]): RunState {
  return fold(runEvents(runtime, ...more));
}

export function fold(events: Given[]): RunState {
  return givenEvents('run-r1', events).reduce(evolveRun, initialRunState());
}

/** Decided events as the store will hold them: each payload must parse against its schema. */
export function expectValidPayloads(events: ReadonlyArray<{ type: string; payload: unknown }>): void {
  for (const e of events) {
    const parsed = parseEventPayload(e.type, e.payload);
    if (!parsed.ok) throw new Error(`${e.type}: ${parsed.error.message}`);
  }
}

export const started = (nodeId: string, attempt = 1, capabilityId?: string): Given => ({
  type: 'node_start',
  payload: {
    nodeId,
    kind: plan.nodes.find((n) => n.id === nodeId)!.kind,
    attempt,
    idempotencyKey: `r1:${nodeId}:${attempt}`,
    ...(capabilityId ? { capabilityId } : {}),
  },
});
export const completed = (nodeId: string, output: Record<string, unknown>, attempt = 1): Given => ({
  type: 'node_complete',
  payload: { nodeId, attempt, output, durationMs: 5 },
});

/** Events up to the writer's completion (structuring and writer done). */
export const writerDone: Given[] = [
  started('structuring-1'),
  completed('structuring-1', brief),
  started('execution-1'),
  completed('execution-1', { copyVariants: variants }),
];

export const qaFindings = (overallScore: number) => ({
  qaFindings: {
    overallScore,
    scores: { readability: overallScore, clarity: overallScore, objectiveFit: overallScore, policyRisk: 0 },
    recommendations: [],
  },
});
