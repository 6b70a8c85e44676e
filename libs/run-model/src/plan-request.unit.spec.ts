import type { PlanGraph } from '@flex/contracts';
import { givenEvents } from '@flex/testing';
import { evolveRun } from './run.evolve';
import {
  askedPlanRequest,
  draftedPlanRequest,
  initialRunState,
  replanForNodeFailure,
  replanInFlight,
  type RunState,
} from './run.state';

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
const accepted = { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] };
const refusal = { status: 'rejected', satisfactionScore: 0, failures: [], warnings: [], infos: [] };

type Given = { type: string; payload: unknown; id?: string };
const start: Given = {
  type: 'start',
  payload: {
    runId: 'r1',
    envelope: { objective: 'o', inputs: {}, outputContract: { schema: { type: 'object' } } },
    normalization: [],
    owner: { principal: 'p', role: 'client' },
  },
};
const failure = { kind: 'node_failed', nodeId: 'write', capabilityId: 'W.write' };
const asked = (id: string, attempt: number, reason = 'initial', trigger?: object): Given => ({
  type: 'plan_requested',
  id,
  payload: {
    attempt,
    reason,
    policyKeys: [],
    ...(trigger ? { replan: { trigger, previousVersion: 1, completedNodeIds: [] } } : {}),
  },
});
const drafted = (id: string, attempt: number): Given => ({
  type: 'plan_drafted',
  id,
  payload: { attempt, plan, planHash: 'h'.repeat(64) },
});
const rejected = (attempt: number): Given => ({
  type: 'plan_rejected',
  payload: { attempt, planHash: 'h'.repeat(64), diagnostics: refusal },
});
const generated: Given = {
  type: 'plan_generated',
  payload: { planVersion: 1, plan, nodes: [], diagnostics: accepted, planHash: 'h', metadata: plan.metadata },
};
const updated: Given = {
  type: 'plan_updated',
  payload: {
    previousVersion: 1,
    version: 2,
    plan: { ...plan, planVersion: 2 },
    nodes: [],
    trigger: failure,
    planHash: 'h',
    diagnostics: accepted,
  },
};

const fold = (...events: Given[]): RunState =>
  givenEvents('run-r1', [start, ...events]).reduce(evolveRun, initialRunState());
const requestOf = (state: RunState) => (state.status === 'none' ? undefined : state.planRequest);

describe('the plan request in flight: one field, one stage at a time', () => {
  it('asked, then drafted (the draft answers the request asked), for the planner and then the validator', () => {
    const askedState = fold(asked('req-1', 1));
    expect(requestOf(askedState)).toEqual({
      stage: 'asked',
      attempt: 1,
      reason: 'initial',
      requestEventId: 'req-1',
    });
    expect(askedPlanRequest(askedState, 'req-1')).toBeDefined();
    expect(draftedPlanRequest(askedState, 'draft-1')).toBeUndefined();

    const draftedState = fold(asked('req-1', 1), drafted('draft-1', 1));
    expect(requestOf(draftedState)).toEqual({
      stage: 'drafted',
      attempt: 1,
      reason: 'initial',
      requestEventId: 'req-1',
      draftEventId: 'draft-1',
    });
    expect(askedPlanRequest(draftedState, 'req-1')).toBeUndefined();
    expect(draftedPlanRequest(draftedState, 'draft-1')).toBeDefined();
  });

  it('rejected ends it; asked again starts a new one; an accepted plan clears it', () => {
    const refused = fold(asked('req-1', 1), drafted('draft-1', 1), rejected(1));
    expect(refused).toMatchObject({ status: 'planning', lastDiagnostics: refusal });
    expect(requestOf(refused)).toBeUndefined();

    const again = fold(asked('req-1', 1), drafted('draft-1', 1), rejected(1), asked('req-2', 2, 'rejected'));
    expect(requestOf(again)).toMatchObject({ stage: 'asked', attempt: 2, requestEventId: 'req-2' });
    expect(askedPlanRequest(again, 'req-1')).toBeUndefined();

    const done = fold(
      asked('req-1', 1),
      drafted('draft-1', 1),
      rejected(1),
      asked('req-2', 2, 'rejected'),
      drafted('draft-2', 2),
      generated,
    );
    expect(done.status).toBe('running');
    expect(requestOf(done)).toBeUndefined();
  });

  it('a draft with no request asked answers nothing: the draft waiting stays the one the validator owes', () => {
    const twice = fold(asked('req-1', 1), drafted('draft-1', 1), drafted('draft-x', 1));
    expect(draftedPlanRequest(twice, 'draft-1')).toBeDefined();
    expect(draftedPlanRequest(twice, 'draft-x')).toBeUndefined();
    expect(requestOf(fold(drafted('draft-x', 1)))).toBeUndefined();
  });

  it('a replan is in flight while asked or drafted; refused once rejected; a node failure asked for it', () => {
    const base = [asked('req-1', 1), drafted('draft-1', 1), generated];
    const replan = asked('req-2', 2, 'replan', failure);
    const askedState = fold(...base, replan);
    expect(replanInFlight(askedState)).toBe(true);
    expect(replanForNodeFailure(askedState)).toBe(true);
    expect(replanInFlight(fold(...base, replan, drafted('draft-2', 2)))).toBe(true);

    const refused = fold(...base, replan, drafted('draft-2', 2), rejected(2));
    expect(refused).toMatchObject({ status: 'running', planVersion: 1, replan: { outcome: 'refused' } });
    expect(replanInFlight(refused)).toBe(false);
    expect(replanForNodeFailure(refused)).toBe(false);

    const renewed = fold(...base, replan, drafted('draft-2', 2), updated);
    expect(renewed).toMatchObject({ status: 'running', planVersion: 2 });
    expect(replanInFlight(renewed)).toBe(false);
  });

  it('a replan a policy asked for is in flight, but not for a node failure', () => {
    const policyReplan = asked('req-2', 2, 'replan', { kind: 'onNodeComplete', policyId: 'qa' });
    const state = fold(asked('req-1', 1), drafted('draft-1', 1), generated, policyReplan);
    expect(replanInFlight(state)).toBe(true);
    expect(replanForNodeFailure(state)).toBe(false);
  });

  it('a planner rejection (no draft) ends the request asked and refuses the replan, as a validator rejection does', () => {
    const base = [asked('req-1', 1), drafted('draft-1', 1), generated, asked('req-2', 2, 'replan', failure)];
    const plannerRejection: Given = {
      type: 'plan_rejected',
      payload: { source: 'planner', attempt: 2, diagnostics: refusal },
    };
    const state = fold(...base, plannerRejection);
    expect(requestOf(state)).toBeUndefined();
    expect(state).toMatchObject({ status: 'running', replan: { outcome: 'refused', trigger: failure } });
  });

  it('an ended run has no request the planner or the validator owes anything on', () => {
    const failed: Given = { type: 'run_failed', payload: { code: 'x', reason: 'y' } };
    const ended = fold(asked('req-1', 1), failed);
    expect(askedPlanRequest(ended, 'req-1')).toBeUndefined();
    expect(
      draftedPlanRequest(fold(asked('req-1', 1), drafted('draft-1', 1), failed), 'draft-1'),
    ).toBeUndefined();
  });
});
