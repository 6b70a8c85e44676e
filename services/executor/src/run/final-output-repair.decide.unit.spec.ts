import type { PlanGraph, PlanNode } from '@flex/contracts';
import type { AgentInvocation } from '@flex/agent-sdk';
import { brief, expectValidPayloads, fold, qaFindings } from '../test-support/run.fixtures';
import {
  altWriter,
  applyDecided,
  drive,
  guaranteed,
  honest,
  noGuarantees,
  planWith,
  repairRun,
  trace,
  type Given,
  type Respond,
} from '../test-support/repair.fixtures';
import { decideAdvance } from './advance.decide';
import { decideAfterHitl } from './run.decide';

const now = new Date('2026-01-01T02:00:00.000Z');
const retry = { maxAttempts: 2, backoffMs: () => 100 };
const options = (maxHitlRequests = 5) => ({
  limits: { maxReplans: 0, maxHitlRequests },
  retry,
  fallbacks: [altWriter],
});

/** Agents: strategy and QA always answer; the writer answers `writes(invocation)`. */
const agents =
  (writes: (invocation: AgentInvocation) => unknown[]): Respond =>
  (invocation) => {
    if (invocation.nodeId === 'structuring-1') return brief;
    if (invocation.nodeId === 'validation-1') return qaFindings(0.9);
    return { copyVariants: writes(invocation) };
  };

/** Strategy, writer (with `firstCopy`) and QA completed once: the main path is done. */
function composed(firstCopy: unknown[], opts: { standby?: boolean } = {}): Given[] {
  return drive(
    repairRun({ plan: planWith({}, opts), constraints: [noGuarantees] }),
    agents(() => firstCopy),
    options(),
    now,
    'validation_error',
  );
}

describe('executor: repairing the final output', () => {
  it('given a main path done, when the copy keeps the contract, then the run completes with it', () => {
    const history = drive(
      repairRun({ plan: planWith(), constraints: [noGuarantees] }),
      agents(() => honest),
      options(),
      now,
    );
    expect(history[history.length - 1]).toEqual({
      type: 'complete',
      payload: {
        output: { copyVariants: honest },
        planVersion: 1,
        satisfactionScore: 1,
        observedSatisfaction: 1,
      },
    });
  });

  it('given a final output breaking a hard constraint, then the writer it is blamed on fails its attempt and its downstream QA is reopened', () => {
    const history = composed(guaranteed);
    const { events } = decideAdvance(fold(history), now, options());
    expect(events).toEqual([
      {
        type: 'validation_error',
        payload: {
          scope: 'final_output',
          nodeId: 'execution-1',
          attempt: 1,
          errors: [
            {
              path: '/constraints/no_guarantees',
              keyword: 'constraint',
              message: expect.stringContaining('hard constraint no_guarantees does not hold'),
            },
          ],
        },
      },
      {
        type: 'node_error',
        payload: expect.objectContaining({
          nodeId: 'execution-1',
          attempt: 1,
          error: expect.objectContaining({ code: 'constraint_failed', retryable: true }),
          willRetry: true,
          retryInMs: 100,
          reopens: ['validation-1'],
        }),
      },
    ]);
    expectValidPayloads(events);
    const state = fold([...history, ...events]);
    expect(
      state.status !== 'none' && [state.nodes['execution-1'].status, state.nodes['validation-1'].status],
    ).toEqual(['retry_wait', 'pending']);
  });

  it('when the retry (handed the errors as feedback) fixes the copy, then QA runs again on it and the run completes', () => {
    const seen: Array<AgentInvocation['feedback']> = [];
    const writer = agents((inv) => {
      seen.push(inv.feedback);
      return inv.feedback ? honest : guaranteed;
    });
    const history = drive(
      repairRun({ plan: planWith(), constraints: [noGuarantees] }),
      writer,
      options(),
      now,
    );
    expect(trace(history, 3)).toEqual([
      'node_start structuring-1#1 S.brief',
      'node_complete structuring-1#1',
      'node_start execution-1#1 W.write',
      'node_complete execution-1#1',
      'node_start validation-1#1 Q.review',
      'node_complete validation-1#1',
      'validation_error execution-1#1 final_output',
      'node_error execution-1#1 constraint_failed retry=true',
      'node_start execution-1#2 W.write',
      'node_complete execution-1#2',
      'node_start validation-1#2 Q.review',
      'node_complete validation-1#2',
      'complete',
    ]);
    expect(seen).toEqual([
      undefined,
      {
        attempt: 1,
        errors: [
          {
            path: '/constraints/no_guarantees',
            keyword: 'constraint',
            message: expect.stringContaining('no_guarantees'),
          },
        ],
      },
    ]);
    expect(history[history.length - 1].payload).toMatchObject({ output: { copyVariants: honest } });
  });

  it('when every retry still breaks it: retries, then the next capable agent with its own retries, then a HITL request carrying the errors', () => {
    const history = drive(
      repairRun({ plan: planWith(), constraints: [noGuarantees] }),
      agents(() => guaranteed),
      options(),
      now,
    );
    expect(trace(history, 9).filter((t) => !t.includes('validation-1'))).toEqual([
      'validation_error execution-1#1 final_output',
      'node_error execution-1#1 constraint_failed retry=true',
      'node_start execution-1#2 W.write',
      'node_complete execution-1#2',
      'validation_error execution-1#2 final_output',
      'node_error execution-1#2 constraint_failed retry=false',
      'node_start execution-1#3 W.alt',
      'node_complete execution-1#3',
      'validation_error execution-1#3 final_output',
      'node_error execution-1#3 constraint_failed retry=true',
      'node_start execution-1#4 W.alt',
      'node_complete execution-1#4',
      'validation_error execution-1#4 final_output',
      'node_error execution-1#4 constraint_failed retry=false',
      'hitl_request execution-1',
    ]);
    const request = history[history.length - 1];
    expect(request.payload).toMatchObject({
      nodeId: 'execution-1',
      mode: 'node_output',
      artifact: {
        fallbackNodeId: 'fallback-1',
        error: { code: 'constraint_failed' },
        feedback: { attempt: 4 },
      },
    });
    expectValidPayloads(history.slice(3));

    // The operator's (validated) output completes the writer; QA runs on it; the run completes.
    const resolved = {
      type: 'hitl_resolved',
      payload: {
        requestId: 'hitl-1',
        decision: 'approve',
        operator: 'op',
        payload: { copyVariants: honest },
      },
    };
    const followUp = decideAfterHitl(
      fold([...history, resolved]),
      resolved.payload as never,
      now,
      options(),
    ).events;
    const afterHitl = drive(
      applyDecided(
        [...history, resolved],
        followUp,
        agents(() => guaranteed),
      ),
      agents(() => guaranteed),
      options(),
      now,
    );
    expect(trace(afterHitl, history.length + 1)).toEqual([
      'node_complete execution-1#4',
      'node_start validation-1#5 Q.review',
      'node_complete validation-1#5',
      'complete',
    ]);
  });

  it('when the HITL bound is spent, then run_failed instead of another request', () => {
    const history = drive(
      repairRun({ plan: planWith(), constraints: [noGuarantees] }),
      agents(() => guaranteed),
      options(0),
      now,
    );
    expect(history[history.length - 1]).toMatchObject({
      type: 'run_failed',
      payload: {
        code: 'hitl_exhausted',
        nodeId: 'execution-1',
        reason: expect.stringContaining('no_guarantees'),
      },
    });
  });

  it('when no operator can be asked (no fallback node), then run_failed with the contract failure and its last errors', () => {
    const history = drive(
      repairRun({ plan: planWith({}, { standby: false }), constraints: [noGuarantees] }),
      agents(() => guaranteed),
      options(),
      now,
    );
    const last = history[history.length - 1];
    expect(last).toMatchObject({
      type: 'run_failed',
      payload: { code: 'constraint_failed', nodeId: 'execution-1' },
    });
    expect((last.payload as { reason: string }).reason).toMatch(
      /execution-1 failed after 4 attempt\(s\) \(fallback W\.alt included\): the final output does not satisfy the contract constraints: hard constraint no_guarantees/,
    );
  });

  it('through a merge node, an error on item i is blamed on the lane that produced item i; the merge runs again after it', () => {
    const lane = (id: string): PlanNode => ({
      id,
      kind: 'execution',
      label: id,
      capabilityId: 'W.write',
      inputFacets: [],
      outputFacets: ['copyVariants'],
    });
    const lanes: PlanGraph = {
      ...planWith(),
      nodes: [
        lane('lane-a'),
        lane('lane-b'),
        {
          id: 'merge-1',
          kind: 'transformation',
          label: 'Merge',
          inputFacets: ['copyVariants'],
          outputFacets: ['copyVariants'],
          merge: { copyVariants: 'concat' },
        },
      ],
      edges: [
        { from: 'lane-a', to: 'merge-1' },
        { from: 'lane-b', to: 'merge-1' },
      ],
    };
    const copy = (id: string, body: unknown) => ({ headline: id, body, callToAction: 'Join' });
    const history = drive(
      repairRun({ plan: lanes }),
      (inv) => ({ copyVariants: [copy(inv.nodeId, inv.nodeId === 'lane-b' && !inv.feedback ? 42 : 'fine')] }),
      options(),
      now,
    );
    expect(trace(history, 3)).toEqual([
      'node_start lane-a#1 W.write',
      'node_complete lane-a#1',
      'node_start lane-b#1 W.write',
      'node_complete lane-b#1',
      'node_start merge-1#1 undefined',
      'node_complete merge-1#1',
      'validation_error lane-b#1 final_output',
      'node_error lane-b#1 output_invalid retry=true',
      'node_start lane-b#2 W.write',
      'node_complete lane-b#2',
      'node_start merge-1#2 undefined',
      'node_complete merge-1#2',
      'complete',
    ]);
    expect(history[9].payload).toMatchObject({ errors: [{ path: '/copyVariants/1/body', keyword: 'type' }] });
    expect(history[10].payload).toMatchObject({ reopens: ['merge-1'] });
  });

  it('every path is bounded: the writer is never attempted more than its two capabilities’ budgets', () => {
    const history = drive(
      repairRun({ plan: planWith({}, { standby: false }), constraints: [noGuarantees] }),
      agents(() => guaranteed),
      options(),
      now,
    );
    const starts = history.filter(
      (e) => e.type === 'node_start' && (e.payload as { nodeId: string }).nodeId === 'execution-1',
    );
    expect(starts).toHaveLength(4);
  });
});
