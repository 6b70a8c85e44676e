import type { RuntimePolicy } from '@flex/contracts';
import { decideManualTrigger, type RunState } from '@flex/run-model';
import {
  brief,
  completed,
  expectValidPayloads,
  given,
  plan,
  qaFindings,
  started,
  writerDone,
} from '../test-support/run.fixtures';
import { decideOnEvent, decideTimers } from './run.decide';

const limits = { maxReplans: 2, maxHitlRequests: 5 };
const at = (iso: string) => new Date(iso);
const now = at('2026-01-01T00:01:00.000Z');
const types = (events: ReadonlyArray<{ type: string }>) => events.map((e) => e.type);
const lowQa: RuntimePolicy = {
  id: 'low_quality',
  trigger: {
    kind: 'onNodeComplete',
    selector: { kind: 'validation' },
    condition: { '<': [{ var: 'qaFindings.overallScore' }, 0.6] },
  },
  action: { type: 'replan' },
};
const qaDone = (score: number) => [
  ...writerDone,
  started('validation-1'),
  completed('validation-1', qaFindings(score)),
];
const lastId = (state: RunState) => `run-r1-e${state.status === 'none' ? 0 : state.version}`;

describe('executor: runtime policies (given events, when a trigger, then events)', () => {
  it('onStart: records a DENY (hard) decision with the canonical action and holds the run for an operator', () => {
    const state = given([
      {
        id: 'review_first',
        trigger: { kind: 'onStart' },
        action: { type: 'hitl', rationale: 'Check the plan' },
      },
    ]);
    const { events } = decideOnEvent(state, [{ kind: 'onStart' }], now, { limits });
    expect(types(events)).toEqual(['policy_triggered', 'hitl_request']);
    expect(events[0].payload).toMatchObject({
      policyId: 'review_first',
      actionDetails: { type: 'hitl' },
      decision: { result: 'DENY', severity: 'hard' },
    });
    expect(events[1].payload).toMatchObject({
      requestId: 'hitl-1',
      policyId: 'review_first',
      rationale: 'Check the plan',
      mode: 'approval',
    });
    expectValidPayloads(events);
  });

  it('onStart without policies starts the first node', () => {
    expect(types(decideOnEvent(given([]), [{ kind: 'onStart' }], now, { limits }).events)).toEqual([
      'node_start',
    ]);
  });

  it('onNodeComplete: a condition over the node output asks for a replan with the completed nodes, and starts nothing', () => {
    const state = given([lowQa], ...qaDone(0.4));
    const { events } = decideOnEvent(
      state,
      [{ kind: 'onNodeComplete', nodeId: 'validation-1', eventId: lastId(state) }],
      now,
      { limits },
    );
    expect(types(events)).toEqual(['policy_triggered', 'plan_requested']);
    expect(events[1].payload).toEqual({
      attempt: 2,
      reason: 'replan',
      policyKeys: ['planner.directives.brandVoice', 'runtime.low_quality'],
      replan: {
        trigger: expect.objectContaining({
          kind: 'onNodeComplete',
          policyId: 'low_quality',
          nodeId: 'validation-1',
        }),
        previousVersion: 1,
        completedNodeIds: ['execution-1', 'structuring-1', 'validation-1'],
      },
    });
    expectValidPayloads(events);
  });

  it('onNodeComplete: a condition that does not hold is an ALLOW that records nothing, and the run completes', () => {
    const state = given([lowQa], ...qaDone(0.9));
    expect(
      types(
        decideOnEvent(
          state,
          [{ kind: 'onNodeComplete', nodeId: 'validation-1', eventId: lastId(state) }],
          now,
          { limits },
        ).events,
      ),
    ).toEqual(['complete']);
  });

  it('onNodeComplete: a selector for another node kind or capability does not fire', () => {
    const other: RuntimePolicy = {
      ...lowQa,
      trigger: {
        kind: 'onNodeComplete',
        selector: { capabilityId: 'W.write' },
        // Evaluated on W.write's own completion too (no qaFindings yet: the default keeps it quiet).
        condition: { '<': [{ var: ['qaFindings.overallScore', 1] }, 0.6] },
      },
    };
    const state = given([other], ...qaDone(0.1));
    expect(
      types(
        decideOnEvent(
          state,
          [{ kind: 'onNodeComplete', nodeId: 'validation-1', eventId: lastId(state) }],
          now,
          { limits },
        ).events,
      ),
    ).toEqual(['complete']);
  });

  it('a node trigger fires once per completion, even when the event is handled again', () => {
    const state = given([lowQa], ...qaDone(0.4));
    const trigger = { kind: 'onNodeComplete' as const, nodeId: 'validation-1', eventId: lastId(state) };
    const first = decideOnEvent(state, [trigger], now, { limits }).events;
    const after = given([lowQa], ...qaDone(0.4), ...first.map((e) => ({ type: e.type, payload: e.payload })));
    expect(types(decideOnEvent(after, [trigger], now, { limits }).events)).toEqual([]);
  });

  it('an evaluation error fails closed: DENY (hard) and the action runs', () => {
    const broken: RuntimePolicy = {
      id: 'broken',
      trigger: { kind: 'onNodeComplete', condition: { method: [{ var: 'x' }, 'toString'] } as never },
      action: { type: 'fail', message: 'policy engine error' },
    };
    const state = given([broken], started('structuring-1'), completed('structuring-1', { writerBrief: {} }));
    const { events } = decideOnEvent(
      state,
      [{ kind: 'onNodeComplete', nodeId: 'structuring-1', eventId: lastId(state) }],
      now,
      { limits },
    );
    expect(types(events)).toEqual(['policy_triggered', 'run_failed']);
    expect((events[0].payload as { decision: { reason: string } }).decision).toMatchObject({
      result: 'DENY',
      severity: 'hard',
      reason: expect.stringContaining('fail closed'),
    });
    expectValidPayloads(events);
  });

  it('a condition over its evaluation budget fails closed: DENY (hard) naming the budget, and the action runs', () => {
    // Within the static limits; the writer's two variants take it over the run-time budget.
    const digits = Array.from({ length: 100 }, (_, i) => i % 10);
    const costly: RuntimePolicy = {
      id: 'costly',
      trigger: {
        kind: 'onNodeComplete',
        selector: { nodeId: 'execution-1' },
        condition: {
          all: [{ var: 'copyVariants' }, { all: [digits, { all: [digits, { '>=': [{ var: '' }, 0] }] }] }],
        },
      },
      action: { type: 'fail', message: 'condition too costly' },
    };
    const state = given([costly], ...writerDone);
    const { events } = decideOnEvent(
      state,
      [{ kind: 'onNodeComplete', nodeId: 'execution-1', eventId: lastId(state) }],
      now,
      { limits },
    );
    expect(types(events)).toEqual(['policy_triggered', 'run_failed']);
    expect((events[0].payload as { decision: unknown }).decision).toMatchObject({
      result: 'DENY',
      severity: 'hard',
      reason: expect.stringMatching(/fail closed.*evaluation budget of 100000 operations/),
    });
    expectValidPayloads(events);
  });

  it('onValidationFail: a failed output check on the selected node fails the run', () => {
    const policy: RuntimePolicy = {
      id: 'strict_writer',
      trigger: { kind: 'onValidationFail', selector: { nodeId: 'execution-1' } },
      action: { type: 'fail', message: 'writer output invalid' },
    };
    const state = given(
      [policy],
      started('structuring-1'),
      completed('structuring-1', { writerBrief: {} }),
      started('execution-1'),
      {
        type: 'validation_error',
        payload: {
          scope: 'capability_output',
          nodeId: 'execution-1',
          errors: [{ path: '/copyVariants', message: 'required' }],
        },
      },
    );
    const { events } = decideOnEvent(
      state,
      [{ kind: 'onValidationFail', nodeId: 'execution-1', eventId: lastId(state), errors: [] }],
      now,
      { limits },
    );
    expect(types(events)).toEqual(['policy_triggered', 'run_failed']);
    expect(events[1].payload).toMatchObject({ code: 'policy_failed', reason: 'writer output invalid' });
  });

  it('onTimeout: before the deadline the timer says when to look again; at the deadline the policy fires once', () => {
    const policy: RuntimePolicy = {
      id: 'deadline',
      trigger: { kind: 'onTimeout', ms: 60_000 },
      action: { type: 'fail', message: 'too slow' },
    };
    const state = given([policy], started('structuring-1'));
    expect(decideTimers(state, at('2026-01-01T00:00:30.000Z'), limits)).toEqual({
      events: [],
      effects: [{ type: 'wake', inMs: 30_000 }],
    });
    const fired = decideTimers(state, at('2026-01-01T00:01:00.000Z'), limits);
    expect(types(fired.events)).toEqual(['policy_triggered', 'run_failed']);
    expect(fired.events[0].payload).toMatchObject({ trigger: { kind: 'onTimeout', key: 'onTimeout' } });
    expectValidPayloads(fired.events);
  });

  it('onMetricBelow: a named metric from the latest outputs emits a custom event and the run goes on', () => {
    const policy: RuntimePolicy = {
      id: 'score_watch',
      trigger: { kind: 'onMetricBelow', metric: 'qaFindings.overallScore', threshold: 0.7 },
      action: { type: 'emit', event: 'low_score', payload: { note: 'watch' } },
    };
    const state = given([policy], ...qaDone(0.5));
    const { events } = decideOnEvent(
      state,
      [{ kind: 'onNodeComplete', nodeId: 'validation-1', eventId: lastId(state) }],
      now,
      { limits },
    );
    expect(types(events)).toEqual(['policy_triggered', 'custom_event', 'complete']);
    expect(events[1].payload).toEqual({
      event: 'low_score',
      payload: { note: 'watch' },
      policyId: 'score_watch',
    });
    expectValidPayloads(events);
  });

  it('onMetricBelow: run metrics (run.durationMs, tokens) are metrics too; a missing metric does not fire', () => {
    const tokens: RuntimePolicy = {
      id: 'tokens',
      trigger: { kind: 'onMetricBelow', metric: 'tokens', threshold: 1 },
      action: { type: 'pause' },
    };
    const missing: RuntimePolicy = {
      id: 'missing',
      trigger: { kind: 'onMetricBelow', metric: 'nothing.here', threshold: 1 },
      action: { type: 'fail' },
    };
    const { events } = decideOnEvent(given([missing, tokens], started('structuring-1')), [], now, { limits });
    expect(types(events)).toEqual(['policy_triggered', 'run_paused']);
    expect(events[0].payload).toMatchObject({ policyId: 'tokens' });
  });

  it('onMetricBelow: tokens and costCents add up the usage agents reported with node_complete', () => {
    const cheap: RuntimePolicy = {
      id: 'cheap',
      trigger: { kind: 'onMetricBelow', metric: 'costCents', threshold: 5 },
      action: { type: 'emit', event: 'cheap_run' },
    };
    const spent = {
      type: 'node_complete',
      payload: {
        nodeId: 'structuring-1',
        attempt: 1,
        output: brief,
        durationMs: 5,
        usage: { tokens: 900, costCents: 3 },
      },
    };
    const underBudget = decideOnEvent(given([cheap], started('structuring-1'), spent), [], now, {
      limits,
    }).events;
    expect(types(underBudget)).toEqual(['policy_triggered', 'custom_event', 'node_start']);
    const pricey = { ...spent, payload: { ...spent.payload, usage: { tokens: 900, costCents: 7 } } };
    expect(
      types(decideOnEvent(given([cheap], started('structuring-1'), pricey), [], now, { limits }).events),
    ).toEqual(['node_start']);
  });

  it('replan is bounded: past FLEX_MAX_REPLANS the run fails', () => {
    const replanned = {
      type: 'plan_requested',
      payload: {
        attempt: 2,
        reason: 'replan',
        policyKeys: [],
        replan: { trigger: {}, previousVersion: 1, completedNodeIds: [] },
      },
    };
    // Two replans, each answered with a new plan version (a replan still in flight would be joined instead).
    const accepted = { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] };
    const updated = (version: number) => ({
      type: 'plan_updated',
      payload: {
        previousVersion: version - 1,
        version,
        plan: { ...plan, planVersion: version },
        nodes: [],
        trigger: {},
        planHash: 'h'.repeat(64),
        diagnostics: accepted,
      },
    });
    const state = given(
      [lowQa],
      replanned,
      updated(2),
      { ...replanned, payload: { ...replanned.payload, attempt: 3 } },
      updated(3),
      ...qaDone(0.1),
    );
    const { events } = decideOnEvent(
      state,
      [{ kind: 'onNodeComplete', nodeId: 'validation-1', eventId: lastId(state) }],
      now,
      { limits },
    );
    expect(types(events)).toEqual(['policy_triggered', 'run_failed']);
    expect(events[1].payload).toMatchObject({ code: 'replan_limit' });
  });

  it('after a replan, plan_updated continues the run: completed nodes keep their outputs, only new work starts', () => {
    const state = given([lowQa], ...qaDone(0.4));
    const replan = decideOnEvent(
      state,
      [{ kind: 'onNodeComplete', nodeId: 'validation-1', eventId: lastId(state) }],
      now,
      { limits },
    ).events;
    const v2 = {
      ...plan,
      planVersion: 2,
      nodes: [
        ...plan.nodes.filter((n) => n.id !== 'validation-1'),
        {
          id: 'validation-2',
          kind: 'validation' as const,
          label: 'QA again',
          capabilityId: 'Q.review',
          inputFacets: ['copyVariants'],
          outputFacets: ['qaFindings'],
        },
      ],
      edges: [
        ...plan.edges.filter((e) => e.to !== 'validation-1'),
        { from: 'execution-1', to: 'validation-2' },
      ],
    };
    const updated = given(
      [lowQa],
      ...qaDone(0.4),
      ...replan.map((e) => ({ type: e.type, payload: e.payload })),
      {
        type: 'plan_updated',
        payload: {
          previousVersion: 1,
          version: 2,
          plan: v2,
          nodes: [],
          trigger: {},
          planHash: 'h'.repeat(64),
          diagnostics: { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] },
        },
      },
    );
    const { events } = decideOnEvent(updated, [], now, { limits });
    expect(events).toEqual([
      {
        type: 'node_start',
        payload: {
          nodeId: 'validation-2',
          capabilityId: 'Q.review',
          kind: 'validation',
          attempt: 1,
          idempotencyKey: 'r1:validation-2:1',
        },
      },
    ]);
    expect(updated.status !== 'none' && updated.nodes['execution-1']).toMatchObject({
      status: 'completed',
      output: { copyVariants: expect.any(Array) },
    });
  });

  it('pause: the snapshot holds the plan version, node states with attempts, policy and HITL state', () => {
    const policy: RuntimePolicy = {
      id: 'brand',
      trigger: { kind: 'onNodeComplete', selector: { nodeId: 'structuring-1' } },
      action: { type: 'pause', reason: 'brand check' },
    };
    const state = given([policy], started('structuring-1'), completed('structuring-1', { writerBrief: {} }));
    const { events } = decideOnEvent(
      state,
      [{ kind: 'onNodeComplete', nodeId: 'structuring-1', eventId: lastId(state) }],
      now,
      { limits },
    );
    expect(types(events)).toEqual(['policy_triggered', 'run_paused']);
    expect(events[1].payload).toEqual({
      reason: 'brand check',
      policyId: 'brand',
      snapshot: {
        planVersion: 1,
        status: 'running',
        nodes: {
          'structuring-1': { status: 'completed', attempt: 1 },
          'execution-1': { status: 'pending', attempt: 0 },
          'validation-1': { status: 'pending', attempt: 0 },
          'fallback-1': { status: 'pending', attempt: 0 },
        },
        policyFirings: { [`brand|onNodeComplete:${lastId(state)}`]: 1 },
        hitl: { count: 0, pending: [] },
        replans: 0,
      },
    });
    expectValidPayloads(events);
  });

  it('manual: an operator fires a manual policy; unknown policies are 404, ended runs 409', () => {
    const policy: RuntimePolicy = {
      id: 'stop',
      trigger: { kind: 'manual' },
      action: { type: 'fail', message: 'stopped by operator' },
    };
    const state = given([policy, lowQa], started('structuring-1'));
    const fired = decideManualTrigger(state, 'r1', 'stop', now, limits);
    expect(types(fired.events)).toEqual(['policy_triggered', 'run_failed']);
    expect(decideManualTrigger(state, 'r1', 'nope', now, limits)).toMatchObject({
      effects: [{ type: 'refuse', code: 'policy_not_found' }],
    });
    expect(decideManualTrigger(state, 'r1', 'low_quality', now, limits)).toMatchObject({
      effects: [{ type: 'refuse', code: 'policy_not_manual' }],
    });
    const ended = given([policy], started('structuring-1'), ...fired.events);
    expect(decideManualTrigger(ended, 'r1', 'stop', now, limits)).toMatchObject({
      effects: [{ type: 'refuse', code: 'invalid_run_state' }],
    });
    expect(decideManualTrigger({ status: 'none' }, 'r1', 'stop', now, limits)).toMatchObject({
      effects: [{ type: 'refuse', code: 'run_not_found' }],
    });
  });

  it('exactly one terminal event: nothing is decided on an ended run, whatever the trigger', () => {
    const policy: RuntimePolicy = { id: 'stop', trigger: { kind: 'onStart' }, action: { type: 'fail' } };
    const ended = given([policy], { type: 'run_failed', payload: { code: 'x', reason: 'y' } });
    expect(decideOnEvent(ended, [{ kind: 'onStart' }], now, { limits }).events).toEqual([]);
    expect(decideTimers(ended, now, limits).events).toEqual([]);
  });
});
