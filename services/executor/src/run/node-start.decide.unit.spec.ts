import type { EventPayload } from '@flex/contracts';
import { expectValidPayloads, given, started } from '../test-support/run.fixtures';
import { decideNodeStart } from './node-start.decide';

const limits = { maxReplans: 2, maxHitlRequests: 1 };
const start = (attempt = 1, capabilityId = 'S.brief'): EventPayload<'node_start'> => ({
  nodeId: 'structuring-1',
  capabilityId,
  kind: 'structuring',
  attempt,
  idempotencyKey: `r1:structuring-1:${attempt}`,
});

describe('decideNodeStart: given a node_start, when the executor acts on it, then', () => {
  it('an agent capability is an invoke effect, and nothing is appended', () => {
    const state = given([], started('structuring-1'));
    expect(decideNodeStart(state, { start: start(), agentType: 'ai' }, limits)).toEqual({
      events: [],
      effects: [{ type: 'invoke', nodeId: 'structuring-1', attempt: 1, capabilityId: 'S.brief' }],
    });
  });

  it('a fallback capability recorded on node_start is the one invoked', () => {
    const state = given([], started('structuring-1', 1, 'S.other'));
    const decided = decideNodeStart(state, { start: start(1, 'S.other'), agentType: undefined }, limits);
    expect(decided.effects).toEqual([
      { type: 'invoke', nodeId: 'structuring-1', attempt: 1, capabilityId: 'S.other' },
    ]);
  });

  it('a human capability asks an operator for the output (no agent is called)', () => {
    const state = given([], started('structuring-1'));
    const decided = decideNodeStart(state, { start: start(), agentType: 'human' }, limits);
    expect(decided.effects).toEqual([]);
    expect(decided.events.map((e) => e.type)).toEqual(['hitl_request']);
    expect(decided.events[0].payload).toMatchObject({ nodeId: 'structuring-1', mode: 'node_output' });
    expectValidPayloads(decided.events);
  });

  it('an attempt that is no longer the live one decides nothing (a stale or duplicate delivery)', () => {
    const state = given([], started('structuring-1', 2));
    expect(decideNodeStart(state, { start: start(1), agentType: 'ai' }, limits)).toEqual({
      events: [],
      effects: [],
    });
  });

  it('a run that has ended decides nothing', () => {
    const cancelled = {
      type: 'run_cancelled',
      payload: { cancelledBy: 'op', from: 'running', closedHitlRequests: [] },
    };
    const state = given([], started('structuring-1'), cancelled);
    expect(decideNodeStart(state, { start: start(), agentType: 'ai' }, limits).effects).toEqual([]);
  });
});
