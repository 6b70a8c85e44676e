import { registrySnapshotOf, type CapabilityRegistration } from '@flex/contracts';
import { evolveRun, initialRunState } from '@flex/run-model';
import { givenEvents } from '@flex/testing';
import {
  brief,
  completed,
  expectValidPayloads,
  fold,
  runEvents,
  started,
} from '../test-support/run.fixtures';
import { decideAdvance } from './advance.decide';
import { decideReaction } from './run.decide';

const now = new Date('2026-01-01T00:01:00.000Z');
const limits = { maxReplans: 2, maxHitlRequests: 5 };
const other: CapabilityRegistration = {
  capabilityId: 'W.other',
  agentType: 'ai',
  version: '1',
  displayName: 'Other writer',
  summary: 'Writes from the objective',
  inputContract: ['objectiveBrief'],
  outputContract: ['copyVariants'],
};
const error = { code: 'boom', message: 'agent crashed', retryable: false };
const failure = {
  kind: 'node_failed',
  nodeId: 'execution-1',
  capabilityId: 'W.write',
  error: 'agent crashed',
};
const writerFailed = [
  ...runEvents([]),
  started('structuring-1'),
  completed('structuring-1', brief),
  started('execution-1'),
  { type: 'node_error', payload: { nodeId: 'execution-1', attempt: 1, error, willRetry: false } },
];
const replanAsked = {
  type: 'plan_requested',
  payload: {
    attempt: 2,
    reason: 'replan',
    policyKeys: [],
    replan: { trigger: failure, previousVersion: 1, completedNodeIds: ['structuring-1'] },
  },
};
const drafted = { type: 'plan_drafted', payload: { attempt: 2, plan: {}, planHash: 'h'.repeat(64) } };
const refused = {
  type: 'plan_rejected',
  payload: {
    attempt: 2,
    planHash: 'h'.repeat(64),
    diagnostics: { status: 'rejected', satisfactionScore: 0, failures: [], warnings: [], infos: [] },
  },
};
const types = (events: ReadonlyArray<{ type: string }>) => events.map((e) => e.type);

describe('executor: a replan a failure asked for that found no valid plan', () => {
  it('first the failure asks for a replan (another capability could produce the outputs)', () => {
    expect(types(decideAdvance(fold(writerFailed), now, { fallbacks: [other], limits }).events)).toEqual([
      'plan_requested',
    ]);
  });

  it('refused: the run keeps its plan and the node goes on to its HITL fallback instead of asking again', () => {
    const state = fold([...writerFailed, replanAsked, drafted, refused]);
    expect(state).toMatchObject({
      status: 'running',
      planVersion: 1,
      replan: { outcome: 'refused', trigger: failure },
    });
    const { events } = decideAdvance(state, now, { fallbacks: [other], limits });
    expect(events).toMatchObject([
      { type: 'hitl_request', payload: { nodeId: 'execution-1', mode: 'node_output' } },
    ]);
  });

  it('refused, then asked again by the validator: the replan is in flight, nothing moves meanwhile', () => {
    const state = fold([
      ...writerFailed,
      replanAsked,
      drafted,
      refused,
      { ...replanAsked, payload: { ...replanAsked.payload, attempt: 3 } },
    ]);
    expect(state).toMatchObject({ replan: { outcome: 'asked' } });
    expect(decideAdvance(state, now, { fallbacks: [other], limits }).events).toEqual([]);
  });
});

describe('executor: a replan a failure asked for that the planner found no plan for', () => {
  const plannerRefused = {
    type: 'plan_rejected',
    payload: {
      source: 'planner',
      attempt: 2,
      plannerError: {
        code: 'PLANNER_NO_CAPABILITIES',
        message: 'no active capability produces copyVariants from writerBrief',
        retryable: false,
        details: {},
      },
      registry: registrySnapshotOf([other]),
      diagnostics: {
        status: 'rejected',
        satisfactionScore: 0,
        failures: [
          {
            severity: 'hard',
            status: 'unsatisfied',
            cause: 'missing_producer',
            constraintId: 'facet.copyVariants',
          },
        ],
        warnings: [],
        infos: [],
      },
    },
  };
  /** The run once the planner's rejection is stored, and that event as the executor receives it. */
  const refusedByPlanner = () => {
    const events = givenEvents('run-r1', [...writerFailed, replanAsked, plannerRefused]);
    return { state: events.reduce(evolveRun, initialRunState()), event: events[events.length - 1] };
  };

  it('the rejection is a valid plan_rejected with no draft, and leaves the run on its plan', () => {
    expectValidPayloads([plannerRefused]);
    expect(refusedByPlanner().state).toMatchObject({
      status: 'running',
      planVersion: 1,
      replan: { outcome: 'refused', trigger: failure },
    });
  });

  it("on that plan_rejected the executor raises the node's HITL fallback instead of asking again", () => {
    const { state, event } = refusedByPlanner();
    const { events } = decideReaction(state, event, now, { fallbacks: [other], limits });
    expect(events).toMatchObject([
      { type: 'hitl_request', payload: { nodeId: 'execution-1', mode: 'node_output' } },
    ]);
    expectValidPayloads(events);
  });

  it('with no operator left to ask, the chain ends: run_failed', () => {
    const { state, event } = refusedByPlanner();
    const exhausted = { maxReplans: 2, maxHitlRequests: 0 };
    const { events } = decideReaction(state, event, now, { fallbacks: [other], limits: exhausted });
    expect(events).toMatchObject([
      { type: 'run_failed', payload: { code: 'hitl_exhausted', nodeId: 'execution-1' } },
    ]);
  });
});
