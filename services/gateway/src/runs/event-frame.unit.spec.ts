import { describe as describeEvent } from './event-frame';

const failure = {
  severity: 'hard',
  status: 'unsatisfied',
  cause: 'missing_producer',
  constraintId: 'facet.copyVariants',
  constraint: 'an active capability produces copyVariants',
  suggestion: 'Register an agent whose outputContract includes copyVariants.\nOr drop it.',
};
const rejected = { status: 'rejected', satisfactionScore: 0, failures: [failure], warnings: [], infos: [] };
const advisory = {
  severity: 'informational',
  status: 'unknown',
  cause: 'advisory',
  constraintId: 'tone_hint',
};
const accepted = {
  status: 'accepted_with_findings',
  satisfactionScore: 0.75,
  verdict: 'proven',
  failures: [],
  warnings: [],
  infos: [advisory],
};

describe('event messages of planning events', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['plan_requested', { attempt: 1, reason: 'initial' }, 'planning (attempt 1)'],
    [
      'plan_requested',
      {
        attempt: 4,
        reason: 'rejected',
        fallback: {
          planner: 'rule-based',
          from: 'llm',
          reason: 'drafts_rejected',
          message: 'llm drafts rejected 3 time(s)',
        },
      },
      'planning (attempt 4, rejected; rule-based fallback: llm drafts rejected 3 time(s))',
    ],
    [
      'plan_rejected',
      { attempt: 1, diagnostics: rejected },
      'plan rejected (rejected, score 0): facet.copyVariants: an active capability produces copyVariants → Register an agent whose outputContract includes copyVariants.',
    ],
    [
      'plan_rejected',
      { source: 'planner', attempt: 2, diagnostics: rejected },
      'no plan from the planner (rejected, score 0): facet.copyVariants: an active capability produces copyVariants → Register an agent whose outputContract includes copyVariants.',
    ],
    [
      'plan_generated',
      { planVersion: 1, nodes: [{ nodeId: 'a' }, { nodeId: 'b' }], diagnostics: accepted },
      'plan v1 accepted (accepted_with_findings, score 0.75, proven): a → b',
    ],
    [
      'plan_updated',
      { previousVersion: 1, version: 2, diagnostics: accepted },
      'plan updated v1 → v2 (accepted_with_findings, score 0.75, proven)',
    ],
    [
      'run_failed',
      {
        code: 'PLANNER_NO_CAPABILITIES',
        reason: 'planner: no active capability produces copyVariants',
        diagnostics: rejected,
      },
      'run failed (PLANNER_NO_CAPABILITIES): planner: no active capability produces copyVariants [facet.copyVariants: an active capability produces copyVariants → Register an agent whose outputContract includes copyVariants.]',
    ],
    [
      'run_failed',
      {
        code: 'plan_rejected',
        reason: 'no valid plan: an active capability produces copyVariants',
        diagnostics: rejected,
      },
      'run failed (plan_rejected): no valid plan: an active capability produces copyVariants',
    ],
    [
      'run_failed',
      { code: 'node_failed', reason: 'writer failed' },
      'run failed (node_failed): writer failed',
    ],
    [
      'run_cancelled',
      { cancelledBy: 'token:abc', reason: 'not needed', from: 'running', closedHitlRequests: [] },
      'run cancelled by token:abc: not needed',
    ],
    [
      'run_cancelled',
      { cancelledBy: 'token:abc', from: 'paused', closedHitlRequests: ['hitl-1'] },
      'run cancelled by token:abc',
    ],
  ])('%s %j', (type, payload, message) => {
    expect(describeEvent(type, payload)).toBe(message);
  });
});

describe('event messages of run events', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'log',
      { level: 'warn', message: 'model slow', source: 'agent', nodeId: 'execution-1' },
      'agent execution-1: model slow',
    ],
    [
      'log',
      { level: 'info', message: 'registry unavailable', source: 'executor' },
      'executor: registry unavailable',
    ],
    ['log', { level: 'info', message: 'recorded before sources' }, 'recorded before sources'],
    ['policy_triggered', { policyId: 'review', actionDetails: { type: 'hitl' } }, 'policy review → hitl'],
    ['run_paused', { reason: 'x' }, 'run_paused'],
    ['run_resumed', {}, 'run_resumed'],
  ])('%s: %j reads "%s"', (type, payload, line) => {
    expect(describeEvent(type, payload)).toBe(line);
  });
});
