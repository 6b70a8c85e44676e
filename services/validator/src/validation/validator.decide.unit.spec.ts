import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  normalizeEnvelope,
  PlanGeneratedPayloadSchema,
  PlanRejectedPayloadSchema,
  PlanRequestedPayloadSchema,
  PlanUpdatedPayloadSchema,
  registrySnapshotOf,
  RunFailedPayloadSchema,
  type CapabilityRegistration,
  type EventPayload,
  type PlanDiagnostic,
  type PlanGraph,
} from '@flex/contracts';
import { evolveRun, initialRunState } from '@flex/run-model';
import { givenEvents } from '@flex/testing';
import { bindContract } from '@flex/proof';
import { mergeDiagnostics } from './diagnostics-merger';
import { decideValidation, evolveValidator, initialValidatorState } from './validator.decide';
import {
  envelopeWith,
  MIN_QA,
  planOf,
  qaNode,
  REGISTRY,
  strategyNode,
  TONE_HINT,
  writerNode,
} from './validation.fixtures';

const normalized = normalizeEnvelope(
  JSON.parse(readFileSync(join(__dirname, '../../../../examples/envelope.json'), 'utf8')),
);
if (!normalized.ok) throw new Error('sample envelope must normalize');
const envelope = normalized.envelope;

const registration = (capabilityId: string): CapabilityRegistration =>
  ({
    capabilityId,
    agentType: 'ai',
    version: '1',
    displayName: capabilityId,
    summary: 's',
    inputContract: ['writerBrief'],
    outputContract: ['copyVariants'],
  }) as CapabilityRegistration;

const plan = (
  nodes: PlanGraph['nodes'],
  edges: PlanGraph['edges'] = [],
  plannerId = 'rule-based',
): PlanGraph => ({
  planVersion: 1,
  nodes,
  edges,
  metadata: { plannerId, plannerVersion: '1', determinism: 'full', inputHash: 'a'.repeat(64) },
});
/** The registry the planner drafted over, as plan_drafted records it. */
const registry = registrySnapshotOf(REGISTRY);

const writer = {
  id: 'execution-1',
  kind: 'execution' as const,
  label: 'W',
  capabilityId: 'W.write',
  inputFacets: [],
  outputFacets: ['copyVariants'],
};

function stateWithDraft(unbound: PlanGraph, attempt = 1) {
  const draft = bindContract(unbound, envelope); // as the planner hands drafts over
  const events = givenEvents('run-r1', [
    {
      type: 'start',
      payload: { runId: 'r1', envelope, normalization: [], owner: { principal: 'p', role: 'client' } },
    },
    { type: 'plan_requested', payload: { attempt, reason: 'initial', policyKeys: [] } },
    {
      type: 'plan_drafted',
      payload: { attempt, plan: draft, planHash: 'f'.repeat(64), registry },
      id: 'draft-1',
    },
  ]);
  return {
    state: events.reduce(evolveRun, initialRunState()),
    draft: events[2].payload as EventPayload<'plan_drafted'>,
  };
}

describe('validator: decide', () => {
  it('accepts a sound draft as plan_generated v1 with trimmed nodes', () => {
    const { state, draft } = stateWithDraft(plan([writer]));
    const [event] = decideValidation(state, {
      draftEventId: 'draft-1',
      draft,
      active: [registration('W.write')],
      maxAttempts: 3,
      maxReplans: 3,
    });
    expect(event.type).toBe('plan_generated');
    const payload = PlanGeneratedPayloadSchema.parse(event.payload);
    expect(payload).toMatchObject({
      planVersion: 1,
      registry,
      nodes: [{ nodeId: 'execution-1', capabilityId: 'W.write', provides: ['copyVariants'], enforces: [] }],
    });
    expect(payload.diagnostics).toEqual({
      status: 'accepted',
      satisfactionScore: 1,
      verdict: 'proven',
      failures: [],
      warnings: [],
      infos: [],
    });
  });

  it('rejects an unregistered capability and asks for another attempt with the diagnostics', () => {
    const { state, draft } = stateWithDraft(plan([writer]));
    const events = decideValidation(state, {
      draftEventId: 'draft-1',
      draft,
      active: [],
      maxAttempts: 3,
      maxReplans: 3,
    });
    expect(events.map((e) => e.type)).toEqual(['plan_rejected', 'plan_requested']);
    const diagnostics = {
      status: 'rejected',
      failures: [{ cause: 'missing_producer', capabilityId: 'W.write' }],
    };
    const rejected = PlanRejectedPayloadSchema.parse(events[0].payload);
    expect(rejected).toMatchObject({
      attempt: 1,
      planHash: 'f'.repeat(64),
      metadata: { plannerId: 'rule-based' },
      registry,
      diagnostics,
    });
    expect(rejected.diagnostics.satisfactionScore).toBe(0);
    expect(events[1].payload).toMatchObject({ attempt: 2, reason: 'rejected', diagnostics });
    expect(events[1].payload).not.toHaveProperty('fallback');
  });

  it('fails the run with the last diagnostics and the registry once the rule-based drafts are used up', () => {
    const { state, draft } = stateWithDraft(
      plan(
        [writer, { ...writer, id: 'b' }],
        [
          { from: 'execution-1', to: 'b' },
          { from: 'b', to: 'execution-1' },
        ],
      ),
      3,
    );
    const events = decideValidation(state, {
      draftEventId: 'draft-1',
      draft,
      active: [registration('W.write')],
      maxAttempts: 3,
      maxReplans: 3,
    });
    expect(events.map((e) => e.type)).toEqual(['plan_rejected', 'run_failed']);
    const failed = RunFailedPayloadSchema.parse(events[1].payload);
    expect(failed.reason).toMatch(/no valid plan after 3 attempt\(s\): the plan has a cycle/);
    expect(failed).toMatchObject({
      code: 'plan_rejected',
      registry,
      diagnostics: { status: 'rejected', failures: [{ constraintId: 'structure.cycle' }] },
    });
    expect(failed.diagnostics?.satisfactionScore).toBeLessThan(1);
  });

  it('falls back to one rule-based draft, and says so, once the LLM planner has used up the attempts', () => {
    const { state, draft } = stateWithDraft(plan([writer], [], 'llm'), 3);
    const events = decideValidation(state, {
      draftEventId: 'draft-1',
      draft,
      active: [],
      maxAttempts: 3,
      maxReplans: 3,
    });
    expect(events.map((e) => e.type)).toEqual(['plan_rejected', 'plan_requested']);
    const request = PlanRequestedPayloadSchema.parse(events[1].payload);
    expect(request).toMatchObject({
      attempt: 4,
      reason: 'rejected',
      diagnostics: { status: 'rejected' },
      fallback: {
        planner: 'rule-based',
        from: 'llm',
        reason: 'drafts_rejected',
        message: expect.stringContaining('rejected 3 time(s)'),
      },
    });
  });

  it('ignores a draft that is not the pending one (duplicate delivery)', () => {
    const { state, draft } = stateWithDraft(plan([writer]));
    expect(
      decideValidation(state, { draftEventId: 'other', draft, active: [], maxAttempts: 3, maxReplans: 3 }),
    ).toEqual([]);
  });

  it('ignores a stale draft: one for an older request, delivered again after it was refused and asked again', () => {
    const { draft } = stateWithDraft(plan([writer]));
    const later = [
      { type: 'plan_rejected', payload: { attempt: 1, planHash: 'f'.repeat(64), diagnostics: {} } },
      { type: 'plan_requested', payload: { attempt: 2, reason: 'rejected', policyKeys: [] }, id: 'req-2' },
      { type: 'plan_drafted', payload: { ...draft, attempt: 2 }, id: 'draft-2' },
    ];
    const events = givenEvents('run-r1', [
      {
        type: 'start',
        payload: { runId: 'r1', envelope, normalization: [], owner: { principal: 'p', role: 'client' } },
      },
      { type: 'plan_requested', payload: { attempt: 1, reason: 'initial', policyKeys: [] }, id: 'req-1' },
      { type: 'plan_drafted', payload: draft, id: 'draft-1' },
      ...later,
    ]);
    const state = events.reduce(evolveValidator, initialValidatorState());
    const input = { draft, active: [registration('W.write')], maxAttempts: 3, maxReplans: 3 };
    expect(decideValidation(state, { ...input, draftEventId: 'draft-1' })).toEqual([]);
    expect(decideValidation(state, { ...input, draftEventId: 'draft-2' }).map((e) => e.type)).toEqual([
      'plan_generated',
    ]);
  });
});

describe('validator: diagnostics merger', () => {
  const d = (over: Partial<PlanDiagnostic>): PlanDiagnostic => ({
    severity: 'soft',
    status: 'unsatisfied',
    cause: 'unsatisfied_soft',
    ...over,
  });

  it('dedupes on (constraintId, nodeId, cause), keeps the most severe, merges suggestions', () => {
    const bundle = mergeDiagnostics(
      [
        d({ constraintId: 'c1', nodeId: 'n', suggestion: 'a' }),
        d({ constraintId: 'c1', nodeId: 'n', severity: 'hard', suggestion: 'b' }),
        d({ constraintId: 'c1', nodeId: 'n', suggestion: 'a' }),
      ],
      [{ constraintId: 'c1', level: 'hard', expr: { '==': [1, 1] } }],
    );
    expect(bundle.failures).toEqual([
      d({ constraintId: 'c1', nodeId: 'n', severity: 'hard', suggestion: 'a\nb' }),
    ]);
    expect(bundle.status).toBe('rejected');
    expect(bundle.satisfactionScore).toBe(0);
  });

  it('scores a failed soft constraint at the spec weights', () => {
    const bundle = mergeDiagnostics(
      [d({ constraintId: 'exact_two' })],
      [
        { constraintId: 'min_qa', level: 'hard', expr: {} },
        { constraintId: 'exact_two', level: 'soft', expr: {} },
        { constraintId: 'tone', level: 'informational', expr: {} },
      ],
    );
    expect(bundle.status).toBe('accepted_with_findings');
    expect(bundle.satisfactionScore).toBeCloseTo(1 / 1.5, 6);
  });

  it('is independent of input order', () => {
    const list = [
      d({ constraintId: 'b', nodeId: '2' }),
      d({ constraintId: 'a', nodeId: '1', severity: 'hard' }),
      d({ constraintId: 'a', nodeId: '0', severity: 'informational', cause: 'advisory', status: 'unknown' }),
    ];
    const forward = mergeDiagnostics(list, []);
    expect(mergeDiagnostics([...list].reverse(), [])).toEqual(forward);
    expect(forward.failures.map((x) => x.constraintId)).toEqual(['a']);
  });
});

describe('validator: replans', () => {
  const envelopeQa = envelopeWith({ constraints: [MIN_QA, TONE_HINT] });
  const accepted = planOf([strategyNode, writerNode(), qaNode(['min_qa'])]);
  const trigger = { kind: 'onNodeComplete', nodeId: 'execution-1', policyId: 'qa_guardrail' };
  const acceptedBundle = { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] };
  const ruleBased = (p: PlanGraph): PlanGraph => ({
    ...p,
    metadata: { ...p.metadata, plannerId: 'rule-based' },
  });

  function replanning(draft: PlanGraph, attempt = 1, waitingForHuman = false) {
    const hitl = waitingForHuman
      ? [{ type: 'hitl_request', payload: { requestId: 'req-1', rationale: 'review', mode: 'approval' } }]
      : [];
    const events = givenEvents('run-r2', [
      {
        type: 'start',
        payload: {
          runId: 'r2',
          envelope: envelopeQa,
          normalization: [],
          owner: { principal: 'p', role: 'client' },
        },
      },
      { type: 'plan_requested', payload: { attempt: 1, reason: 'initial', policyKeys: [] } },
      {
        type: 'plan_drafted',
        payload: { attempt: 1, plan: accepted, planHash: 'b'.repeat(64), registry },
        id: 'draft-0',
      },
      {
        type: 'plan_generated',
        payload: {
          planVersion: 1,
          plan: accepted,
          nodes: [],
          planHash: 'b'.repeat(64),
          metadata: accepted.metadata,
          registry,
          diagnostics: acceptedBundle,
        },
      },
      ...hitl,
      {
        type: 'plan_requested',
        payload: {
          attempt,
          reason: 'replan',
          policyKeys: [],
          replan: { trigger, previousVersion: 1, completedNodeIds: ['strategy-1'] },
        },
      },
      {
        type: 'plan_drafted',
        payload: { attempt, plan: draft, planHash: 'c'.repeat(64), registry },
        id: 'draft-1',
      },
    ]);
    const state = events.reduce(evolveValidator, initialValidatorState());
    return { state, draft: events[events.length - 1].payload as EventPayload<'plan_drafted'> };
  }

  it('appends an accepted replan as plan_updated with the trigger, the new version and the diagnostics buckets', () => {
    const { state, draft } = replanning(accepted);
    const [event, ...rest] = decideValidation(state, {
      draftEventId: 'draft-1',
      draft,
      active: REGISTRY,
      maxAttempts: 3,
      maxReplans: 3,
    });
    expect(rest).toEqual([]);
    expect(event.type).toBe('plan_updated');
    const payload = PlanUpdatedPayloadSchema.parse(event.payload);
    const diagnostics = {
      status: 'accepted_with_findings',
      satisfactionScore: 1,
      failures: [],
      warnings: [],
    };
    expect(payload).toMatchObject({
      previousVersion: 1,
      version: 2,
      trigger,
      planHash: 'c'.repeat(64),
      registry,
      diagnostics,
    });
    expect(payload.plan.planVersion).toBe(2);
    expect(payload.diagnostics.infos).toEqual([
      // A score in [0, 1] against 0.8: left to the run-time check.
      expect.objectContaining({ cause: 'advisory', constraintId: 'min_qa', status: 'unknown' }),
      expect.objectContaining({ cause: 'advisory', constraintId: 'tone_hint' }),
    ]);
    expect(payload.diagnostics.verdict).toBe('unknown');
    expect(payload.nodes.map((n) => [n.nodeId, n.enforces])).toEqual([
      ['strategy-1', []],
      ['execution-1', []],
      ['validation-1', ['min_qa']],
    ]);
  });

  it('proves a replan draft that arrives while the run waits for a human (it must not hang unproven)', () => {
    const { state, draft } = replanning(accepted, 1, true);
    expect(state.run.status).toBe('awaiting_hitl');
    expect(
      decideValidation(state, {
        draftEventId: 'draft-1',
        draft,
        active: REGISTRY,
        maxAttempts: 3,
        maxReplans: 3,
      }).map((e) => e.type),
    ).toEqual(['plan_updated']);
  });

  it('asks again for a replan (keeping its trigger) when a replan draft is rejected, then keeps the trigger after acceptance', () => {
    const { state, draft } = replanning(planOf([strategyNode, writerNode()]));
    const events = decideValidation(state, {
      draftEventId: 'draft-1',
      draft,
      active: REGISTRY,
      maxAttempts: 3,
      maxReplans: 3,
    });
    expect(events.map((e) => e.type)).toEqual(['plan_rejected', 'plan_requested']);
    const request = PlanRequestedPayloadSchema.parse(events[1].payload);
    expect(request).toMatchObject({
      attempt: 2,
      reason: 'replan',
      replan: { trigger, previousVersion: 1 },
      diagnostics: { status: 'rejected', failures: [{ cause: 'missing_producer', constraintId: 'min_qa' }] },
    });

    const next = givenEvents('run-r2', [
      { type: 'plan_rejected', payload: events[0].payload },
      { type: 'plan_requested', payload: events[1].payload },
      {
        type: 'plan_drafted',
        payload: { attempt: 2, plan: accepted, planHash: 'd'.repeat(64), registry },
        id: 'draft-2',
      },
    ]).map((e, i) => ({ ...e, version: 7 + i, position: 7 + i }));
    const later = next.reduce(evolveValidator, state);
    const [updated] = decideValidation(later, {
      draftEventId: 'draft-2',
      draft: next[2].payload as EventPayload<'plan_drafted'>,
      active: REGISTRY,
      maxAttempts: 3,
      maxReplans: 3,
    });
    expect(updated).toMatchObject({
      type: 'plan_updated',
      payload: { previousVersion: 1, version: 2, trigger },
    });
  });

  /** A run on plan v1 whose replan a node's failure asked for (attempt `attempt`) has `draft` to prove. */
  function failureReplanning(draft: PlanGraph, attempt: number) {
    const failed = { kind: 'node_failed', nodeId: 'execution-1', capabilityId: 'W.write' };
    const events = givenEvents('run-r5', [
      {
        type: 'start',
        payload: {
          runId: 'r5',
          envelope: envelopeQa,
          normalization: [],
          owner: { principal: 'p', role: 'client' },
        },
      },
      { type: 'plan_requested', payload: { attempt: 1, reason: 'initial', policyKeys: [] } },
      {
        type: 'plan_drafted',
        payload: { attempt: 1, plan: accepted, planHash: 'b'.repeat(64), registry },
        id: 'draft-0',
      },
      {
        type: 'plan_generated',
        payload: {
          planVersion: 1,
          plan: accepted,
          nodes: [],
          planHash: 'b'.repeat(64),
          metadata: accepted.metadata,
          registry,
          diagnostics: acceptedBundle,
        },
      },
      {
        type: 'plan_requested',
        payload: {
          attempt,
          reason: 'replan',
          policyKeys: [],
          replan: { trigger: failed, previousVersion: 1, completedNodeIds: ['strategy-1'] },
        },
      },
      {
        type: 'plan_drafted',
        payload: { attempt, plan: draft, planHash: 'c'.repeat(64), registry },
        id: 'draft-r',
      },
    ]);
    const state = events.reduce(evolveValidator, initialValidatorState());
    const input = { draftEventId: 'draft-r', draft: events[5].payload as EventPayload<'plan_drafted'> };
    // This replan is the run's first: asking again is its second.
    return (maxReplans: number, maxAttempts = 3) =>
      decideValidation(state, { ...input, active: REGISTRY, maxAttempts, maxReplans }).map((e) => e.type);
  }

  it('a replan a node failure asked for, refused to the end: only plan_rejected; the run keeps its plan (its fallback chain goes on)', () => {
    const refused = failureReplanning(ruleBased(planOf([strategyNode, writerNode()])), 3);
    expect(refused(3)).toEqual(['plan_rejected']);
  });

  it('a replan a node failure asked for is asked again only within the replan bound (the planner would fail the run past it)', () => {
    const early = failureReplanning(ruleBased(planOf([strategyNode, writerNode()])), 2);
    expect(early(2)).toEqual(['plan_rejected', 'plan_requested']);
    expect(early(1)).toEqual(['plan_rejected']);
    const llm = failureReplanning(
      { ...planOf([strategyNode, writerNode()]), metadata: { ...accepted.metadata, plannerId: 'llm' } },
      3,
    );
    expect(llm(2)).toEqual(['plan_rejected', 'plan_requested']);
    expect(llm(1)).toEqual(['plan_rejected']);
  });

  it('a first plan is still plan_generated, validated by its contract schema', () => {
    const events = givenEvents('run-r4', [
      {
        type: 'start',
        payload: {
          runId: 'r4',
          envelope: envelopeQa,
          normalization: [],
          owner: { principal: 'p', role: 'client' },
        },
      },
      { type: 'plan_requested', payload: { attempt: 1, reason: 'initial', policyKeys: [] } },
      {
        type: 'plan_drafted',
        payload: { attempt: 1, plan: accepted, planHash: 'e'.repeat(64), registry },
        id: 'draft-1',
      },
    ]);
    const state = events.reduce(evolveValidator, initialValidatorState());
    const [event] = decideValidation(state, {
      draftEventId: 'draft-1',
      draft: events[2].payload as EventPayload<'plan_drafted'>,
      active: REGISTRY,
      maxAttempts: 3,
      maxReplans: 3,
    });
    expect(event.type).toBe('plan_generated');
    expect(PlanGeneratedPayloadSchema.safeParse(event.payload).success).toBe(true);
  });

  it('fails with a message naming the blocking finding and its suggestion', () => {
    const events = givenEvents('run-r3', [
      {
        type: 'start',
        payload: {
          runId: 'r3',
          envelope: envelopeQa,
          normalization: [],
          owner: { principal: 'p', role: 'client' },
        },
      },
      { type: 'plan_requested', payload: { attempt: 3, reason: 'rejected', policyKeys: [] } },
      {
        type: 'plan_drafted',
        payload: {
          attempt: 3,
          plan: ruleBased(planOf([strategyNode, writerNode()])),
          planHash: 'h'.repeat(64),
          registry,
        },
        id: 'draft-3',
      },
    ]);
    const state = events.reduce(evolveValidator, initialValidatorState());
    const out = decideValidation(state, {
      draftEventId: 'draft-3',
      draft: events[2].payload as EventPayload<'plan_drafted'>,
      active: REGISTRY,
      maxAttempts: 3,
      maxReplans: 3,
    });
    expect(out[1]).toMatchObject({
      type: 'run_failed',
      payload: {
        code: 'plan_rejected',
        reason:
          'no valid plan after 3 attempt(s): qaFindings.overallScore >= 0.8 (Insert QualityAssuranceAgent.contentReview before execution-1.)',
      },
    });
    expect(RunFailedPayloadSchema.safeParse(out[1].payload).success).toBe(true);
  });
});
