import { contentHash } from '../canonical/canonical-json';
import { PlanGraphSchema, type PlanGraph } from '../plan/plan-graph';
import type { PlanNode } from '../plan/plan-node';
import { planGraphToSteps } from './plan-graph-to-steps';
import { PlannerErrorCode, PlannerErrorSchema, PlannerOutputSchema } from './planner-io';
import { Spec004PlanSchema } from './spec004-plan';

const node = (id: string, kind: PlanNode['kind'], extra: Partial<PlanNode> = {}): PlanNode => ({
  id,
  kind,
  label: id,
  inputFacets: [],
  outputFacets: [],
  ...extra,
});

const plan: PlanGraph = {
  planVersion: 1,
  nodes: [
    node('strategy', 'structuring', {
      capabilityId: 'StrategyManagerAgent.briefing',
      outputFacets: ['writerBrief', 'planKnobs'],
    }),
    node('qa', 'validation', {
      capabilityId: 'QualityAssuranceAgent.contentReview',
      inputFacets: ['copyVariants'],
      enforces: ['min_qa'],
    }),
    node('write', 'execution', {
      capabilityId: 'ContentGeneratorAgent.linkedinVariants',
      retry: { maxAttempts: 3, backoffMs: 500 },
    }),
    node('fallback', 'fallback', { fallbackFor: 'write', instructions: 'Escalate to a human' }),
  ],
  edges: [
    { from: 'strategy', to: 'write' },
    { from: 'write', to: 'qa' },
    { from: 'write', to: 'fallback' },
    { from: 'write', to: 'qa' },
  ],
  metadata: {
    plannerId: 'rule-based',
    plannerVersion: '1.0.0',
    determinism: 'full',
    inputHash: contentHash({ goal: 'x' }),
    tokens: { input: 10, output: 5 },
  },
};

describe('planGraphToSteps', () => {
  it('gives the spec-004 view: topological, deterministic, valid', () => {
    const view = planGraphToSteps(PlanGraphSchema.parse(plan));
    expect(view.steps.map((s) => [s.step_id, s.skill, s.depends_on, s.on_error, s.retry_count])).toEqual([
      ['strategy', 'StrategyManagerAgent.briefing', [], 'abort', 0],
      ['write', 'ContentGeneratorAgent.linkedinVariants', ['strategy'], 'retry', 2],
      ['qa', 'QualityAssuranceAgent.contentReview', ['write'], 'abort', 0],
      ['fallback', 'flex.fallback', ['write'], 'abort', 0],
    ]);
    expect(view.metadata).toEqual({
      planner: 'rule-based',
      planner_version: '1.0.0',
      input_tokens: 10,
      output_tokens: 5,
      deterministic: true,
    });
    expect(Spec004PlanSchema.parse(view)).toEqual(view);
    expect(contentHash(planGraphToSteps(plan))).toBe(contentHash(view));
  });

  it.each<[string, Partial<PlanGraph>, string]>([
    [
      'a cycle',
      {
        edges: [
          { from: 'strategy', to: 'write' },
          { from: 'write', to: 'strategy' },
        ],
      },
      'PLAN_CYCLE',
    ],
    ['an edge to an unknown node', { edges: [{ from: 'strategy', to: 'ghost' }] }, 'PLAN_EDGE_UNKNOWN_NODE'],
    ['a duplicate node id', { nodes: [plan.nodes[0], plan.nodes[0]] }, 'PLAN_DUPLICATE_NODE'],
  ])('refuses %s', (_name, patch, code) => {
    expect(() => planGraphToSteps({ ...plan, ...patch })).toThrow(expect.objectContaining({ code }));
  });
});

describe('Spec004PlanSchema', () => {
  it('applies the documented defaults', () => {
    expect(
      Spec004PlanSchema.parse({ steps: [{ step_id: 's1', skill: 'fetch', params: {} }] }).steps[0],
    ).toEqual({
      step_id: 's1',
      skill: 'fetch',
      params: {},
      depends_on: [],
      on_error: 'abort',
      retry_count: 3,
    });
  });

  it.each<[string, unknown, string]>([
    [
      'a dependency on a later step',
      {
        steps: [
          { step_id: 'a', skill: 's', params: {}, depends_on: ['b'] },
          { step_id: 'b', skill: 's', params: {} },
        ],
      },
      'steps.0.depends_on.0',
    ],
    [
      'a duplicate step id',
      {
        steps: [
          { step_id: 'a', skill: 's', params: {} },
          { step_id: 'a', skill: 's', params: {} },
        ],
      },
      'steps.1.step_id',
    ],
    ['no steps', { steps: [] }, 'steps'],
    [
      'an unknown on_error',
      { steps: [{ step_id: 'a', skill: 's', params: {}, on_error: 'ignore' }] },
      'steps.0.on_error',
    ],
  ])('refuses %s', (_name, value, path) => {
    expect(Spec004PlanSchema.safeParse(value).error?.issues.map((i) => i.path.join('.'))).toEqual([path]);
  });
});

describe('PlannerOutputSchema and PlannerErrorSchema', () => {
  it('requires deterministic to agree with the plan determinism mode', () => {
    expect(PlannerOutputSchema.safeParse({ plan, metadata: {}, deterministic: true }).success).toBe(true);
    expect(
      PlannerOutputSchema.safeParse({ plan, metadata: {}, deterministic: false }).error?.issues[0].path,
    ).toEqual(['deterministic']);
    const structural = { ...plan, metadata: { ...plan.metadata, determinism: 'structural' as const } };
    expect(
      PlannerOutputSchema.safeParse({ plan: structural, metadata: { model: 'm' }, deterministic: false })
        .success,
    ).toBe(true);
  });

  it('knows the seven error codes and refuses others', () => {
    expect(Object.keys(PlannerErrorCode)).toEqual([
      'PLANNER_INVALID_GOAL',
      'PLANNER_NO_CAPABILITIES',
      'PLANNER_RATE_LIMITED',
      'PLANNER_TIMEOUT',
      'PLANNER_MALFORMED_OUTPUT',
      'PLANNER_UNRESOLVABLE',
      'PLANNER_INTERNAL',
    ]);
    const error = {
      code: PlannerErrorCode.PLANNER_RATE_LIMITED,
      message: 'Planner API rate limited',
      retryable: true,
      details: { retry_after_ms: 5000 },
    };
    expect(PlannerErrorSchema.parse(error)).toEqual(error);
    expect(PlannerErrorSchema.safeParse({ ...error, code: 'RATE_LIMITED' }).success).toBe(false);
  });

  it('refuses a plan with an unhashed inputHash or no nodes', () => {
    expect(
      PlanGraphSchema.safeParse({ ...plan, metadata: { ...plan.metadata, inputHash: 'abc' } }).error
        ?.issues[0].path,
    ).toEqual(['metadata', 'inputHash']);
    expect(PlanGraphSchema.safeParse({ ...plan, nodes: [] }).error?.issues[0].path).toEqual(['nodes']);
  });
});
