import type { PlanGraph } from '@flex/contracts';
import { givenEvents } from '@flex/testing';
import { evolveRun } from '../run.evolve';
import { initialRunState, type RunState } from '../run.state';

/** Given-events of one run `r1` for decider specs: a one-node plan, started, planned, waiting, paused. */
export type Given = { type: string; payload: unknown };

export const plan: PlanGraph = {
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
const envelope = { objective: 'o', inputs: {}, outputContract: { schema: { type: 'object' } } };
const diagnostics = { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] };

export const start: Given = {
  type: 'start',
  payload: { runId: 'r1', envelope, normalization: [], owner: { principal: 'p', role: 'client' } },
};
export const requested: Given = {
  type: 'plan_requested',
  payload: { attempt: 1, reason: 'initial', policyKeys: [] },
};
export const generated: Given = {
  type: 'plan_generated',
  payload: { planVersion: 1, plan, nodes: [], diagnostics, planHash: 'h', metadata: plan.metadata },
};
export const approval: Given = {
  type: 'hitl_request',
  payload: { requestId: 'hitl-1', policyId: 'p', rationale: 'r', mode: 'approval' },
};
export const paused: Given = { type: 'run_paused', payload: { reason: 'x', snapshot: {} } };
export const cancelled: Given = {
  type: 'run_cancelled',
  payload: { cancelledBy: 'op', from: 'running', closedHitlRequests: [] },
};

/** The state of run `r1` after `events`. */
export const fold = (...events: Given[]): RunState =>
  givenEvents('run-r1', events).reduce(evolveRun, initialRunState());
