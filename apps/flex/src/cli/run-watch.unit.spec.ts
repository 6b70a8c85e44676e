import { EXIT } from './exit-codes';
import { progressBlock } from './progress';
import { NOTHING_WATCHED, restingExit, watchRun, type RecordedFrame, type RunWatch } from './run-watch';

let position = 0;
const frame = (type: string, payload?: unknown, extra: object = {}): RecordedFrame =>
  ({
    type,
    id: `e${++position}`,
    position,
    timestamp: `2025-01-01T00:00:0${Math.min(position, 9)}.000Z`,
    runId: 'r1',
    correlationId: 'c1',
    payload,
    ...extra,
  }) as RecordedFrame;

const fold = (...frames: RecordedFrame[]): RunWatch => frames.reduce(watchRun, NOTHING_WATCHED);
const plan = frame(
  'plan_generated',
  { nodes: [{ nodeId: 'a', capabilityId: 'X.y' }, { nodeId: 'b' }] },
  { planVersion: 1 },
);

describe('watchRun', () => {
  it('follows node states through a plan', () => {
    const w = fold(
      frame('start'),
      plan,
      frame('node_start', { nodeId: 'a', attempt: 1 }),
      frame('node_error', { nodeId: 'a', attempt: 1, willRetry: true }),
      frame('node_start', { nodeId: 'a', attempt: 2 }),
      frame('node_complete', { nodeId: 'a', attempt: 2 }),
      frame('node_start', { nodeId: 'b', attempt: 1 }),
    );
    expect(w.nodes.map((n) => [n.nodeId, n.state, n.attempt])).toEqual([
      ['a', 'done', 2],
      ['b', 'running', 1],
    ]);
    expect(w).toMatchObject({ runId: 'r1', planVersion: 1, lastPosition: position });
    expect(restingExit(w)).toBeUndefined();
  });

  it('says where a run rests: waiting for a human, paused, or ended', () => {
    const waiting = fold(frame('start'), frame('hitl_request', { requestId: 'hitl-1' }));
    expect(restingExit(waiting)).toBe(EXIT.waitingForHuman);
    expect(restingExit(watchRun(waiting, frame('hitl_resolved', { requestId: 'hitl-1' })))).toBeUndefined();
    expect(restingExit(watchRun(waiting, frame('hitl_withdrawn', { requestId: 'hitl-1' })))).toBeUndefined();
    const paused = fold(frame('run_paused', { reason: 'x' }));
    expect(restingExit(paused)).toBe(EXIT.paused);
    expect(restingExit(watchRun(paused, frame('run_resumed')))).toBeUndefined();
    expect(restingExit(fold(frame('complete', { output: { ok: 1 } })))).toBe(EXIT.ok);
    expect(restingExit(fold(frame('run_failed', { code: 'x', reason: 'y' })))).toBe(EXIT.failed);
    expect(restingExit(fold(frame('run_cancelled', {})))).toBe(EXIT.cancelled);
  });

  it('keeps completed nodes across a replan', () => {
    const w = fold(
      plan,
      frame('node_complete', { nodeId: 'a', attempt: 1 }),
      frame('plan_updated', { nodes: [{ nodeId: 'a' }, { nodeId: 'c' }] }, { planVersion: 2 }),
    );
    expect(w.planVersion).toBe(2);
    expect(w.nodes.map((n) => `${n.nodeId}:${n.state}`)).toEqual(['a:done', 'c:pending']);
  });
});

describe('progressBlock', () => {
  it('shows the run, its state, elapsed time and each node', () => {
    const w = fold(frame('start'), plan, frame('node_complete', { nodeId: 'a', attempt: 1 }));
    const lines = progressBlock(w, Date.parse(w.startedAt as string) + 2500);
    expect(lines[0]).toMatch(/^run r1 {2}running {2}2\.5s {2}plan v1 {2}1\/2 nodes$/);
    expect(lines[1]).toMatch(/✓ a +X\.y +done/);
    expect(lines[2]).toMatch(/· b +pending/);
    const waiting = watchRun(w, frame('hitl_request', { requestId: 'hitl-1' }));
    expect(progressBlock(waiting, 0)[0]).toMatch(/waiting for a human \(hitl-1\)/);
  });
});
