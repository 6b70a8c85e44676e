import { normalizeEnvelope, type ConstraintSpec, type PlanGraph } from '@flex/contracts';
import { evolveRun, initialRunState, type StartedRun } from '@flex/run-model';
import { givenEvents } from '@flex/testing';
import { composeFinalOutput } from './output-composer';

const variant = (n: number) => ({ headline: `H${n}`, body: `B${n}`, callToAction: `C${n}` });
const plan: PlanGraph = {
  planVersion: 1,
  nodes: [
    {
      id: 'execution-1',
      kind: 'execution',
      label: 'W',
      capabilityId: 'W.write',
      inputFacets: [],
      outputFacets: ['copyVariants'],
    },
    {
      id: 'validation-1',
      kind: 'validation',
      label: 'Q',
      capabilityId: 'Q.review',
      inputFacets: ['copyVariants'],
      outputFacets: ['qaFindings'],
    },
  ],
  edges: [{ from: 'execution-1', to: 'validation-1' }],
  metadata: { plannerId: 't', plannerVersion: '1', determinism: 'full', inputHash: 'a'.repeat(64) },
};

function finishedRun(
  constraints: ConstraintSpec[],
  outputs: { copyVariants: unknown[]; overallScore: number },
): StartedRun {
  const normalized = normalizeEnvelope({
    objective: 'Write two variants',
    inputs: {},
    outputContract: {
      schema: {
        type: 'object',
        required: ['copyVariants'],
        properties: { copyVariants: { type: 'array', maxItems: 3 } },
      },
      constraints,
    },
  });
  if (!normalized.ok) throw new Error(JSON.stringify(normalized.errors));
  const qaFindings = { overallScore: outputs.overallScore, scores: {}, issues: [], overallStatus: 'pass' };
  const events = givenEvents('run-c1', [
    {
      type: 'start',
      payload: {
        runId: 'c1',
        envelope: normalized.envelope,
        normalization: [],
        owner: { principal: 'p', role: 'client' },
      },
    },
    {
      type: 'plan_generated',
      payload: {
        planVersion: 1,
        plan,
        nodes: [],
        diagnostics: { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] },
        planHash: 'b'.repeat(64),
        metadata: plan.metadata,
      },
    },
    {
      type: 'node_start',
      payload: { nodeId: 'execution-1', kind: 'execution', attempt: 1, idempotencyKey: 'k1' },
    },
    {
      type: 'node_complete',
      payload: {
        nodeId: 'execution-1',
        kind: 'execution',
        attempt: 1,
        output: { copyVariants: outputs.copyVariants },
        durationMs: 1,
      },
    },
    {
      type: 'node_start',
      payload: { nodeId: 'validation-1', kind: 'validation', attempt: 1, idempotencyKey: 'k2' },
    },
    {
      type: 'node_complete',
      payload: {
        nodeId: 'validation-1',
        kind: 'validation',
        attempt: 1,
        output: { qaFindings },
        durationMs: 1,
      },
    },
  ]);
  return events.reduce(evolveRun, initialRunState()) as StartedRun;
}

const MIN_QA: ConstraintSpec = {
  constraintId: 'min_qa',
  level: 'hard',
  expr: { '>=': [{ var: 'qaFindings.overallScore' }, 0.8] },
};
const EXACT_TWO: ConstraintSpec = {
  constraintId: 'exact_two',
  level: 'soft',
  expr: { '==': [{ var: 'copyVariants.length' }, 2] },
};
const TONE: ConstraintSpec = {
  constraintId: 'tone',
  level: 'informational',
  expr: { '!!': [{ var: 'toneOfVoice' }] },
};

describe('composeFinalOutput: schema, then every constraint', () => {
  it('returns the output and observedSatisfaction when every constraint holds (facets the caller does not ask back included)', () => {
    const composed = composeFinalOutput(
      finishedRun([MIN_QA, EXACT_TWO, TONE], { copyVariants: [variant(1), variant(2)], overallScore: 0.9 }),
    );
    expect(composed).toEqual({
      ok: true,
      output: { copyVariants: [variant(1), variant(2)] },
      observedSatisfaction: 1,
    });
  });

  it('scores a soft constraint that does not hold without failing: (1 + 0) / 1.5', () => {
    const composed = composeFinalOutput(
      finishedRun([MIN_QA, EXACT_TWO], { copyVariants: [variant(1)], overallScore: 0.9 }),
    );
    expect(composed).toMatchObject({ ok: true });
    expect(composed.ok && composed.observedSatisfaction).toBeCloseTo(1 / 1.5, 6);
  });

  it('fails a hard constraint that does not hold with constraint_failed', () => {
    const composed = composeFinalOutput(
      finishedRun([MIN_QA, EXACT_TWO], { copyVariants: [variant(1), variant(2)], overallScore: 0.5 }),
    );
    expect(composed).toEqual({
      ok: false,
      reason: 'constraint_failed',
      // The message names the rule, so whoever repairs the output knows what to satisfy; roots say which facets it reads.
      errors: [
        {
          path: '/constraints/min_qa',
          keyword: 'constraint',
          message: 'hard constraint min_qa does not hold: {">=":[{"var":"qaFindings.overallScore"},0.8]}',
          roots: ['qaFindings'],
        },
      ],
    });
  });

  it('fails a hard constraint over its evaluation budget as not holding, with the reason, never a throw', () => {
    // Within the static limits (its literal arrays cost ~60,000 operations per variant), over the
    // budget on two variants: the data decides, so only the run-time budget can stop it.
    const digits = Array.from({ length: 100 }, (_, i) => i % 10);
    const costly: ConstraintSpec = {
      constraintId: 'costly',
      level: 'hard',
      expr: {
        all: [{ var: 'copyVariants' }, { all: [digits, { all: [digits, { '>=': [{ var: '' }, 0] }] }] }],
      },
    };
    const one = composeFinalOutput(finishedRun([costly], { copyVariants: [variant(1)], overallScore: 0.9 }));
    expect(one).toMatchObject({ ok: true });
    const two = composeFinalOutput(
      finishedRun([costly], { copyVariants: [variant(1), variant(2)], overallScore: 0.9 }),
    );
    expect(two).toMatchObject({
      ok: false,
      reason: 'constraint_failed',
      errors: [
        {
          path: '/constraints/costly',
          message: expect.stringMatching(
            /could not be evaluated: the rule needs more than its evaluation budget of 100000 operations/,
          ),
          roots: ['copyVariants'],
        },
      ],
    });
  });

  it('checks the caller schema first (output_invalid)', () => {
    const composed = composeFinalOutput(
      finishedRun([MIN_QA], {
        copyVariants: [variant(1), variant(2), variant(3), variant(4)],
        overallScore: 0.1,
      }),
    );
    expect(composed).toMatchObject({
      ok: false,
      reason: 'output_invalid',
      errors: [{ path: '/copyVariants', keyword: 'maxItems', roots: ['copyVariants'] }],
    });
  });
});
