import type { PlanGraph, PlanNode } from '@flex/contracts';
import { nodeOutputErrors, nodeOutputSchema } from '@flex/run-model';
import { brief, completed, expectValidPayloads, fold, started } from '../test-support/run.fixtures';
import {
  guaranteed,
  honest,
  noGuarantees,
  planWith,
  repairRun,
  type Given,
} from '../test-support/repair.fixtures';
import { decideAdvance } from './advance.decide';
import { buildInvocation } from './context-builder';
import { decideInvocation } from './invoke.decide';

const now = new Date('2026-01-01T02:00:00.000Z');
const retry = { maxAttempts: 3, backoffMs: () => 100 };
const types = (events: ReadonlyArray<{ type: string }>) => events.map((e) => e.type);
const asGiven = (events: ReadonlyArray<Given>): Given[] =>
  events.map((e) => ({ type: e.type, payload: e.payload }));
const writerOf = (plan: PlanGraph) => plan.nodes.find((n) => n.id === 'execution-1') as PlanNode;

describe('executor: a node retried with feedback', () => {
  const plan = planWith();
  const writing = repairRun(
    { plan },
    started('structuring-1'),
    completed('structuring-1', brief),
    started('execution-1'),
  );
  const refused = {
    ok: false as const,
    durationMs: 1,
    error: { code: 'invalid_output', message: 'bad', retryable: true },
    outputErrors: [
      { path: '/copyVariants', keyword: 'type', message: 'must be array', facet: 'copyVariants' },
    ],
  };

  it('given an attempt refused for its output, when the retry starts, then the agent is handed that attempt’s errors', () => {
    const state = fold(writing);
    expect(state.status !== 'none' && buildInvocation(state, writerOf(plan), 1, 0).feedback).toBeUndefined();
    const events = decideInvocation(state, 'execution-1', 1, refused, retry);
    expect(events[0]).toEqual({
      type: 'validation_error',
      payload: {
        scope: 'capability_output',
        nodeId: 'execution-1',
        attempt: 1,
        errors: refused.outputErrors,
      },
    });
    const retrying = [...writing, ...asGiven(events)];
    expect(types(decideAdvance(fold(retrying), now).events)).toEqual(['node_start']);
    const second = fold([...retrying, started('execution-1', 2)]);
    if (second.status === 'none') throw new Error('run');
    expect(buildInvocation(second, writerOf(plan), 2, 0).feedback).toEqual({
      attempt: 1,
      errors: [{ path: '/copyVariants', keyword: 'type', message: 'must be array' }],
    });
  });

  it('given a replan after refused attempts, the node keeps counting attempts (a new idempotency key) on a fresh retry budget', () => {
    const refusedOnce = [
      ...writing,
      ...asGiven(
        decideInvocation(
          fold(writing),
          'execution-1',
          1,
          { ...refused, error: { ...refused.error, retryable: false } },
          retry,
        ),
      ),
    ];
    const diagnostics = { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] };
    const replanned = [
      ...refusedOnce,
      {
        type: 'plan_updated',
        payload: {
          previousVersion: 1,
          version: 2,
          plan: { ...plan, planVersion: 2 },
          nodes: [],
          trigger: {},
          planHash: 'h'.repeat(64),
          diagnostics,
        },
      },
    ];
    const { events } = decideAdvance(fold(replanned), now);
    expect(events).toEqual([
      {
        type: 'node_start',
        payload: expect.objectContaining({
          nodeId: 'execution-1',
          attempt: 2,
          idempotencyKey: 'r1:execution-1:2',
        }),
      },
    ]);
    const second = fold([...replanned, ...asGiven(events)]);
    expect(decideInvocation(second, 'execution-1', 2, refused, retry).at(-1)?.payload).toMatchObject({
      attempt: 2,
      willRetry: true,
    });
  });

  it('given the retry completed, then the feedback is settled', () => {
    const done = fold([
      ...writing,
      ...asGiven(decideInvocation(fold(writing), 'execution-1', 1, refused, retry)),
      started('execution-1', 2),
      completed('execution-1', { copyVariants: honest }, 2),
    ]);
    expect(done.status !== 'none' && done.nodes['execution-1'].feedback).toBeUndefined();
  });
});

describe('executor: hard constraints a node enforces', () => {
  const plan = planWith({ enforces: ['no_guarantees'] });
  const writing = repairRun(
    { plan, constraints: [noGuarantees] },
    started('structuring-1'),
    completed('structuring-1', brief),
    started('execution-1'),
  );
  const answered = (copyVariants: unknown[]) => ({
    ok: true as const,
    output: { copyVariants },
    durationMs: 1,
  });

  it('given an output meeting its facet contract, when it breaks an enforced hard constraint, then the attempt is an invalid_output at /constraints/<id>, retried', () => {
    const events = decideInvocation(fold(writing), 'execution-1', 1, answered(guaranteed), retry);
    expect(types(events)).toEqual(['validation_error', 'node_error']);
    expect(events[0].payload).toMatchObject({
      scope: 'capability_output',
      nodeId: 'execution-1',
      errors: [{ path: '/constraints/no_guarantees', keyword: 'constraint' }],
    });
    expect(events[1].payload).toMatchObject({
      error: { code: 'invalid_output', retryable: true },
      willRetry: true,
    });
    expectValidPayloads(events);
  });

  it('given an output keeping it, then the node completes', () => {
    expect(types(decideInvocation(fold(writing), 'execution-1', 1, answered(honest), retry))).toEqual([
      'node_complete',
    ]);
  });

  it('a constraint the node does not list, or whose facets it cannot see, is left to the final output', () => {
    const unlisted = repairRun(
      { plan: planWith(), constraints: [noGuarantees] },
      started('structuring-1'),
      completed('structuring-1', brief),
      started('execution-1'),
    );
    expect(types(decideInvocation(fold(unlisted), 'execution-1', 1, answered(guaranteed), retry))).toEqual([
      'node_complete',
    ]);
    const minQa = {
      constraintId: 'min_qa',
      level: 'hard' as const,
      expr: { '>=': [{ var: 'qaFindings.overallScore' }, 0.8] },
    };
    const blind = repairRun(
      { plan: planWith({ enforces: ['min_qa'] }), constraints: [minQa] },
      started('structuring-1'),
      completed('structuring-1', brief),
      started('execution-1'),
    );
    expect(types(decideInvocation(fold(blind), 'execution-1', 1, answered(honest), retry))).toEqual([
      'node_complete',
    ]);
  });

  it('after the retries, the node takes the usual way: failed, then its fallback chain', () => {
    let history = writing;
    for (const attempt of [1, 2, 3]) {
      history = [
        ...history,
        ...asGiven(decideInvocation(fold(history), 'execution-1', attempt, answered(guaranteed), retry)),
      ];
      if (attempt < 3) history = [...history, started('execution-1', attempt + 1)];
    }
    const state = fold(history);
    expect(state.status !== 'none' && state.nodes['execution-1']).toMatchObject({
      status: 'failed',
      feedback: { attempt: 3 },
    });
    expect(decideAdvance(state, now)).toEqual({ events: [], effects: [{ type: 'need_registry' }] });
  });
});

describe('executor: contract bindings', () => {
  const body = {
    type: 'array',
    minItems: 2,
    maxItems: 2,
    items: { type: 'object', properties: { body: { type: 'string', maxLength: 20 } } },
  };
  const bound = writerOf(
    planWith({
      bindings: { outputs: { copyVariants: body }, inputs: { planKnobs: { variantCount: 2 } } },
      inputFacets: ['writerBrief', 'planKnobs'],
    }),
  );

  it('an output is checked against its facet and its binding; binding errors point into the facet', () => {
    expect(nodeOutputErrors(bound, { copyVariants: honest })).toEqual([]);
    const long = [{ ...honest[0], body: 'x'.repeat(21) }, honest[1]];
    expect(nodeOutputErrors(bound, { copyVariants: long })).toEqual([
      {
        path: '/copyVariants/0/body',
        keyword: 'maxLength',
        message: 'must NOT have more than 20 characters',
        facet: 'copyVariants',
      },
    ]);
    expect(nodeOutputErrors(bound, { copyVariants: 'x' })).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: '/copyVariants', facet: 'copyVariants' })]),
    );
  });

  it('the invocation carries the full output contract (binding as allOf) and the bound input fields', () => {
    const history = repairRun(
      { plan: { ...planWith(), nodes: planWith().nodes.map((n) => (n.id === 'execution-1' ? bound : n)) } },
      started('structuring-1'),
      completed('structuring-1', { ...brief, planKnobs: { variantCount: 4, ctaFocus: 'apply' } }),
      started('execution-1'),
    );
    const state = fold(history);
    if (state.status === 'none') throw new Error('run');
    const invocation = buildInvocation(state, bound, 1, 0);
    expect(invocation.outputSchema).toEqual(nodeOutputSchema(bound));
    expect(
      (invocation.outputSchema as { properties: Record<string, { allOf: unknown[] }> }).properties
        .copyVariants.allOf[1],
    ).toEqual(body);
    expect(invocation.inputs.planKnobs).toEqual({ variantCount: 2, ctaFocus: 'apply' });
    const noUpstream = buildInvocation(
      {
        ...state,
        nodes: { ...state.nodes, 'structuring-1': { status: 'completed', attempt: 1, output: brief } },
      },
      bound,
      1,
      0,
    );
    expect(noUpstream.inputs.planKnobs).toEqual({ variantCount: 2 });
  });
});

describe('executor: a merge node concatenates its lanes', () => {
  const lane = (id: string): PlanNode => ({
    id,
    kind: 'execution',
    label: id,
    capabilityId: 'W.write',
    inputFacets: [],
    outputFacets: ['copyVariants'],
  });
  const merge = (binding?: Record<string, unknown>): PlanNode => ({
    id: 'merge-1',
    kind: 'transformation',
    label: 'Merge',
    inputFacets: ['copyVariants'],
    outputFacets: ['copyVariants'],
    merge: { copyVariants: 'concat' },
    ...(binding ? { bindings: { outputs: { copyVariants: binding } } } : {}),
  });
  const lanes = (m: PlanNode): PlanGraph => ({
    planVersion: 1,
    nodes: [lane('lane-b'), lane('lane-a'), m],
    edges: [
      { from: 'lane-a', to: 'merge-1' },
      { from: 'lane-b', to: 'merge-1' },
      { from: 'lane-a', to: 'lane-b' },
    ],
    metadata: { plannerId: 'test', plannerVersion: '1', determinism: 'full', inputHash: 'x'.repeat(64) },
  });
  const copy = (n: number) => ({ headline: `H${n}`, body: `B${n}`, callToAction: `C${n}` });
  const lanesDone = (m: PlanNode) =>
    repairRun(
      { plan: lanes(m) },
      {
        type: 'node_start',
        payload: { nodeId: 'lane-a', kind: 'execution', attempt: 1, idempotencyKey: 'a' },
      },
      {
        type: 'node_complete',
        payload: {
          nodeId: 'lane-a',
          attempt: 1,
          output: { copyVariants: [copy(1), copy(2)] },
          durationMs: 1,
        },
      },
      {
        type: 'node_start',
        payload: { nodeId: 'lane-b', kind: 'execution', attempt: 1, idempotencyKey: 'b' },
      },
      {
        type: 'node_complete',
        payload: { nodeId: 'lane-b', attempt: 1, output: { copyVariants: [copy(3)] }, durationMs: 1 },
      },
    );

  it('in topological order of its lanes', () => {
    const { events } = decideAdvance(fold(lanesDone(merge())), now);
    expect(events[1]).toEqual({
      type: 'node_complete',
      payload: {
        nodeId: 'merge-1',
        attempt: 1,
        output: { copyVariants: [copy(1), copy(2), copy(3)] },
        durationMs: 0,
      },
    });
  });

  it('a merged value breaking the node’s binding: the lane that gave the offending item is repaired, and the merge waits for it', () => {
    const { events } = decideAdvance(
      fold(lanesDone(merge({ items: { properties: { body: { maxLength: 2 } } } }))),
      now,
      { retry },
    );
    // copy(3) is item 2 of the concatenation: lane-b's first item. Lane-b's body "B3" fits; make it not fit.
    expect(events.map((e) => e.type)).toEqual(['node_start', 'node_complete']);
    const long = lanesDone(merge({ items: { properties: { body: { maxLength: 2 } } } })).map((e) =>
      e.type === 'node_complete' && (e.payload as { nodeId: string }).nodeId === 'lane-b'
        ? {
            ...e,
            payload: {
              ...(e.payload as object),
              output: { copyVariants: [{ ...copy(3), body: 'Too long' }] },
            },
          }
        : e,
    );
    const repair = decideAdvance(fold(long), now, { retry }).events;
    expect(repair.map((e) => [e.type, (e.payload as { nodeId: string }).nodeId])).toEqual([
      ['validation_error', 'merge-1'],
      ['validation_error', 'lane-b'],
      ['node_error', 'lane-b'],
    ]);
    expect(repair[0].payload).toMatchObject({
      scope: 'capability_output',
      errors: [{ path: '/copyVariants/2/body', keyword: 'maxLength' }],
    });
    expect(repair[2].payload).toMatchObject({
      attempt: 1,
      willRetry: true,
      error: { code: 'invalid_output' },
    });
    expectValidPayloads(repair);
    const after = fold([...long, ...asGiven(repair)]);
    expect(
      after.status !== 'none' && [
        after.nodes['lane-a'].status,
        after.nodes['lane-b'].status,
        after.nodes['merge-1'].status,
      ],
    ).toEqual(['completed', 'retry_wait', 'pending']);
    expect(
      decideAdvance(after, now).events.map((e) => [e.type, (e.payload as { nodeId: string }).nodeId]),
    ).toEqual([['node_start', 'lane-b']]);
  });

  it('a hard constraint the merge node enforces is checked on the whole; the lanes producing it are repaired', () => {
    const count = {
      constraintId: 'three',
      level: 'hard' as const,
      expr: { '==': [{ var: 'copyVariants.length' }, 4] },
    };
    const m = { ...merge(), enforces: ['three'] };
    const history = lanesDone(m).map((e) =>
      e.type === 'start'
        ? {
            ...e,
            payload: {
              ...(e.payload as { envelope: { outputContract: object } }),
              envelope: {
                ...(e.payload as { envelope: { outputContract: object } }).envelope,
                outputContract: {
                  ...(e.payload as { envelope: { outputContract: object } }).envelope.outputContract,
                  constraints: [count],
                },
              },
            },
          }
        : e,
    );
    const repair = decideAdvance(fold(history), now, { retry }).events;
    // Both lanes are blamed (and told); lane-b depends on lane-a here, so repairing lane-a reopens it.
    expect(repair.map((e) => [e.type, (e.payload as { nodeId: string }).nodeId])).toEqual([
      ['validation_error', 'merge-1'],
      ['validation_error', 'lane-a'],
      ['validation_error', 'lane-b'],
      ['node_error', 'lane-a'],
    ]);
    expect(repair[1].payload).toMatchObject({ errors: [{ path: '/constraints/three' }] });
    expect(repair[3].payload).toMatchObject({ reopens: ['lane-b'] });
  });

  it('a merged value no upstream agent can be blamed for fails the node for good', () => {
    const envelopeOnly = {
      constraintId: 'objective',
      level: 'hard' as const,
      expr: { '==': [{ var: 'objectiveBrief.objective' }, 'something else'] },
    };
    const m = { ...merge(), enforces: ['objective'] };
    const history = lanesDone(m).map((e) =>
      e.type === 'start'
        ? {
            ...e,
            payload: {
              ...(e.payload as { envelope: { outputContract: object } }),
              envelope: {
                ...(e.payload as { envelope: { outputContract: object } }).envelope,
                outputContract: {
                  ...(e.payload as { envelope: { outputContract: object } }).envelope.outputContract,
                  constraints: [envelopeOnly],
                },
              },
            },
          }
        : e,
    );
    const { events } = decideAdvance(fold(history), now);
    expect(types(events)).toEqual(['node_start', 'validation_error', 'node_error']);
    expect(events[2].payload).toMatchObject({
      nodeId: 'merge-1',
      willRetry: false,
      error: { code: 'invalid_output', retryable: false },
    });
  });
});
