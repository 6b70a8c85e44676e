import { contentHash } from '../canonical/canonical-json';
import type { PlanGraph } from '../plan/plan-graph';
import { summarizePlan } from '../plan/plan-node-summary';
import { registrySnapshotOf } from '../planner/registry-snapshot';
import {
  CAPABILITY_EVENT_TYPES,
  EVENT_PAYLOAD_SCHEMAS,
  INTERNAL_EVENT_TYPES,
  parseEventPayload,
  RUN_EVENT_TYPES,
  TERMINAL_EVENT_TYPES,
  type EventPayloadInput,
  type FlexEventType,
} from './event-catalog';
import { FlexEventFrameSchema } from './event-frame';
import { capabilityIdFromStreamId, capabilityStreamId, runIdFromStreamId, runStreamId } from './stream-ids';

const hash = contentHash('x');
const plan = (planVersion: number): PlanGraph => ({
  planVersion,
  nodes: [
    {
      id: 'write',
      kind: 'execution',
      label: 'Write',
      capabilityId: 'writer.en',
      inputFacets: ['writerBrief'],
      outputFacets: ['copyVariants'],
      enforces: ['two'],
    },
  ],
  edges: [],
  metadata: { plannerId: 'rule-based', plannerVersion: '1.0.0', determinism: 'full', inputHash: hash },
});
const rejected = {
  status: 'rejected',
  satisfactionScore: 0,
  failures: [{ severity: 'hard', status: 'unsatisfied', cause: 'missing_producer', constraintId: 'two' }],
  warnings: [],
  infos: [],
};
const accepted = {
  status: 'accepted',
  satisfactionScore: 1,
  verdict: 'proven',
  failures: [],
  warnings: [],
  infos: [],
};
const provenance = {
  plannerId: 'rule-based',
  plannerVersion: '1.0.0',
  determinism: 'full',
  inputHash: hash,
} as const;
const deny = { result: 'DENY', reason: 'low_quality: score below 0.6', severity: 'hard' };
const registration = {
  capabilityId: 'writer.en',
  agentType: 'ai',
  version: '1',
  displayName: 'Writer',
  summary: 'Writes',
  inputContract: ['writerBrief'],
  outputContract: ['copyVariants'],
};
const registry = registrySnapshotOf([registration as never]);

/** One valid payload per event type. */
const SAMPLES: { [T in FlexEventType]: EventPayloadInput<T> } = {
  start: {
    runId: 'run-1',
    envelope: { objective: 'Two posts', inputs: {}, outputContract: { schema: { type: 'object' } } },
    normalization: [{ path: 'outputContract.mode', from: 'json_schema', note: 'dropped' }],
    owner: { principal: 'token:abc', role: 'client' },
  },
  plan_requested: {
    attempt: 4,
    reason: 'rejected',
    policyKeys: ['planner.topology'],
    diagnostics: rejected as never,
    fallback: {
      planner: 'rule-based',
      from: 'llm',
      reason: 'drafts_rejected',
      message: 'the llm planner drafts were rejected 3 time(s)',
    },
  },
  plan_drafted: {
    attempt: 1,
    plan: plan(1),
    planHash: hash,
    registry,
    plannerError: { code: 'PLANNER_TIMEOUT', message: 'llm timed out', retryable: true, details: {} },
  },
  plan_rejected: {
    attempt: 1,
    planHash: hash,
    metadata: { ...provenance, fallbackReason: 'PLANNER_TIMEOUT: no answer' },
    registry,
    diagnostics: rejected as never,
  },
  plan_generated: {
    planVersion: 1,
    plan: plan(1),
    nodes: summarizePlan(plan(1)),
    planHash: hash,
    metadata: provenance,
    registry,
    diagnostics: accepted as never,
  },
  plan_updated: {
    previousVersion: 1,
    version: 2,
    plan: plan(2),
    nodes: summarizePlan(plan(2)),
    trigger: { policyId: 'low_quality' },
    planHash: hash,
    registry,
    diagnostics: {
      ...accepted,
      status: 'accepted_with_findings',
      verdict: 'unknown',
      infos: [{ severity: 'informational', status: 'unknown', cause: 'advisory' }],
    } as never,
  },
  node_start: {
    nodeId: 'write',
    capabilityId: 'writer.en',
    kind: 'execution',
    attempt: 1,
    idempotencyKey: 'run-1:write:1',
  },
  node_complete: {
    nodeId: 'write',
    attempt: 1,
    output: { copyVariants: [] },
    durationMs: 12.5,
    facetProvenance: [{ facet: 'copyVariants', direction: 'output', pointer: '/properties/copyVariants' }],
    usage: { tokens: 120, costCents: 0.4, model: 'gpt-x' },
  },
  node_error: {
    nodeId: 'write',
    attempt: 1,
    error: { code: 'invalid_output', message: 'bad', retryable: true },
    willRetry: true,
    retryInMs: 500,
  },
  validation_error: {
    scope: 'capability_output',
    nodeId: 'write',
    errors: [
      { path: '/copyVariants/0', keyword: 'required', message: 'headline missing', facet: 'copyVariants' },
    ],
  },
  policy_triggered: {
    policyId: 'low_quality',
    trigger: { kind: 'onNodeComplete' },
    actionDetails: { type: 'hitl', approveAction: { type: 'replan' } },
    decision: deny as never,
    nodeId: 'qa',
  },
  hitl_request: {
    requestId: 'req-1',
    nodeId: 'qa',
    policyId: 'low_quality',
    rationale: 'Review the copy',
    artifact: ['any', { json: true }],
    mode: 'approval',
    action: { type: 'hitl', rejectAction: { type: 'pause' } },
  },
  hitl_resolved: { requestId: 'req-1', decision: 'approve', note: 'fine', operator: 'alice' },
  hitl_withdrawn: { requestId: 'req-1', reason: 'S.brief is back', capabilityId: 'S.brief' },
  run_paused: { reason: 'brand risk', policyId: 'brand', snapshot: { pending: ['qa'] } },
  run_resumed: { expectedPlanVersion: 2, resumedBy: 'alice' },
  replan_deferred: {
    trigger: { kind: 'manual', policyId: 'rethink' },
    waitingFor: ['hitl-1'],
    policyId: 'rethink',
  },
  custom_event: { event: 'qa_low', payload: { score: 0.4 }, policyId: 'low_quality' },
  complete: { output: { copyVariants: [] }, planVersion: 2, satisfactionScore: 1, observedSatisfaction: 0.5 },
  run_failed: {
    code: 'plan_rejected',
    reason: 'no acceptable plan after 3 attempts',
    diagnostics: rejected as never,
    registry,
  },
  run_cancelled: {
    cancelledBy: 'token:abc',
    reason: 'no longer needed',
    from: 'awaiting_hitl',
    closedHitlRequests: ['hitl-1'],
  },
  log: { level: 'info', message: 'hello', data: { n: 1 } },
  capability_registered: {
    registration: registration as never,
    instanceId: 'writer-1',
    registeredAt: '2025-03-02T10:00:00.000Z',
    owner: 'writer-team',
  },
  capability_status_changed: {
    capabilityId: 'writer.en',
    instanceId: 'writer-1',
    status: 'inactive',
    reason: 'heartbeat missed',
  },
  capability_deregistered: { capabilityId: 'writer.en' },
  capability_owner_assigned: {
    capabilityId: 'writer.en',
    owner: 'writer-team',
    previousOwner: 'tok_0123456789abcdef',
    assignedBy: 'tok_fedcba9876543210',
  },
};

describe('event payloads', () => {
  it('has one sample per event type', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(Object.keys(EVENT_PAYLOAD_SCHEMAS).sort());
  });

  it.each(Object.entries(SAMPLES))(
    '%s: parses, and survives a JSON round trip unchanged',
    (type, payload) => {
      const parsed = parseEventPayload(type, payload);
      expect(parsed).toEqual({ ok: true, value: payload });
      expect(parseEventPayload(type, JSON.parse(JSON.stringify(payload)))).toEqual(parsed);
    },
  );

  it.each<[FlexEventType, Record<string, unknown>, string, string]>([
    ['node_start', { attempt: 0 }, 'attempt', 'too_small'],
    ['node_start', { extra: true }, 'extra', 'unknown_field'],
    ['node_error', { willRetry: false, retryInMs: 5 }, 'retryInMs', 'invalid_value'],
    [
      'plan_rejected',
      { diagnostics: { ...rejected, status: 'accepted', failures: [] } },
      'diagnostics.status',
      'invalid_value',
    ],
    [
      'plan_requested',
      { diagnostics: { ...rejected, status: 'accepted' } },
      'diagnostics.status',
      'inconsistent_status',
    ],
    ['plan_generated', { diagnostics: rejected }, 'diagnostics.status', 'invalid_value'],
    [
      'plan_generated',
      { diagnostics: { ...accepted, verdict: 'maybe' } },
      'diagnostics.verdict',
      'invalid_value',
    ],
    ['plan_updated', { diagnostics: undefined }, 'diagnostics', 'required'],
    [
      'plan_rejected',
      { diagnostics: { ...rejected, satisfactionScore: 1 } },
      'diagnostics.satisfactionScore',
      'inconsistent_score',
    ],
    ['plan_drafted', { registry: { ...registry, hash } }, 'registry.hash', 'hash_mismatch'],
    ['plan_drafted', { registry: undefined }, 'registry', 'required'],
    ['run_failed', { diagnostics: accepted }, 'diagnostics.status', 'invalid_value'],
    ['plan_requested', { capabilitySnapshot: { count: 1 } }, 'capabilitySnapshot', 'unknown_field'],
    ['plan_generated', { planVersion: 2 }, 'plan.planVersion', 'invalid_value'],
    ['plan_updated', { previousVersion: 2 }, 'version', 'invalid_value'],
    ['policy_triggered', { actionDetails: { type: 'goto' } }, 'actionDetails.type', 'invalid_value'],
    ['policy_triggered', { decision: { ...deny, severity: 'soft' } }, 'decision.severity', 'invalid_value'],
    ['node_complete', { output: { at: new Date(0) } }, 'output.at', 'not_json'],
    ['capability_registered', { registeredAt: 'yesterday' }, 'registeredAt', 'invalid_format'],
    ['start', { owner: { principal: 'p', role: 'root' } }, 'owner.role', 'invalid_value'],
    ['complete', { planVersion: undefined }, 'planVersion', 'required'],
    ['run_cancelled', { closedHitlRequests: undefined }, 'closedHitlRequests', 'required'],
    [
      'run_failed',
      {
        deadLetter: {
          consumer: 'executor',
          eventId: 'e',
          eventType: 'node_start',
          deliveryCount: 0,
          error: 'x',
        },
      },
      'deadLetter.deliveryCount',
      'too_small',
    ],
  ])('%s refuses %j at %s', (type, patch, path, code) => {
    const result = parseEventPayload(type, { ...SAMPLES[type], ...patch });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('INVALID_EVENT_PAYLOAD');
      expect(result.error.issues.map((i) => [i.path, i.code])).toEqual([[path, code]]);
    }
  });

  it('refuses an unknown type without throwing', () => {
    expect(parseEventPayload('plan_exploded', {})).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'UNKNOWN_EVENT_TYPE' }),
    });
    expect(parseEventPayload('toString', {})).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'UNKNOWN_EVENT_TYPE' }),
    });
  });

  it('applies defaults on the way in', () => {
    const { agentType: _dropped, ...withoutAgentType } = registration;
    const parsed = parseEventPayload('capability_registered', {
      ...SAMPLES.capability_registered,
      registration: withoutAgentType,
    });
    expect(parsed.ok && parsed.value.registration.agentType).toBe('ai');
  });
});

describe('event type lists', () => {
  it('split every type into run and capability streams', () => {
    expect([...RUN_EVENT_TYPES, ...CAPABILITY_EVENT_TYPES].sort()).toEqual(
      Object.keys(EVENT_PAYLOAD_SCHEMAS).sort(),
    );
    expect(RUN_EVENT_TYPES.filter((t) => (CAPABILITY_EVENT_TYPES as readonly string[]).includes(t))).toEqual(
      [],
    );
  });

  it('name the terminal and internal run events', () => {
    expect(TERMINAL_EVENT_TYPES).toEqual(['complete', 'run_failed', 'run_cancelled']);
    expect(INTERNAL_EVENT_TYPES).toEqual(['plan_drafted']);
  });
});

describe('FlexEventFrameSchema', () => {
  const frame = {
    type: 'node_start',
    id: '42',
    timestamp: '2025-03-02T10:00:00Z',
    runId: 'run-1',
    nodeId: 'write',
    planVersion: 1,
    correlationId: 'c-1',
    payload: SAMPLES.node_start,
  };

  it('accepts a frame and checks its payload against its type', () => {
    expect(FlexEventFrameSchema.parse(frame)).toEqual(frame);
    expect(FlexEventFrameSchema.parse({ ...frame, type: 'log', payload: undefined, message: 'hi' })).toEqual({
      ...frame,
      type: 'log',
      payload: undefined,
      message: 'hi',
    });
    expect(FlexEventFrameSchema.safeParse({ ...frame, type: 'complete' }).error?.issues[0].path).toEqual([
      'payload',
    ]);
  });

  it.each<[string, Record<string, unknown>]>([
    ['an unknown type', { type: 'boom' }],
    ['a missing correlationId', { correlationId: undefined }],
    ['a non-ISO timestamp', { timestamp: 'now' }],
    ['an unknown field', { traceId: 't' }],
  ])('refuses %s', (_name, patch) => {
    expect(FlexEventFrameSchema.safeParse({ ...frame, ...patch }).success).toBe(false);
  });
});

describe('stream ids', () => {
  it.each([['run-1'], ['7f3a-uuid'], ['a.b:c']])('round-trips the run id %s', (runId) => {
    expect(runStreamId(runId)).toBe(`run-${runId}`);
    expect(runIdFromStreamId(runStreamId(runId))).toBe(runId);
    expect(capabilityIdFromStreamId(runStreamId(runId))).toBeUndefined();
  });

  it('round-trips capability ids and refuses foreign streams', () => {
    expect(capabilityStreamId('writer.en')).toBe('capability-writer.en');
    expect(capabilityIdFromStreamId('capability-writer.en')).toBe('writer.en');
    expect(runIdFromStreamId('capability-writer.en')).toBeUndefined();
    expect(runIdFromStreamId('run-')).toBeUndefined();
  });
});
