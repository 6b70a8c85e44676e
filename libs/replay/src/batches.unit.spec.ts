import { groupBatches } from './batches';
import { stream } from './replay.spec-helper';

describe('groupBatches: one batch per recorded append', () => {
  const t0 = '2026-01-01T00:00:00.000Z';
  const t1 = '2026-01-01T00:00:00.001Z';

  it('cuts where the producer, the causation, the actor or the clock reading changes', () => {
    const events = stream(
      ['start', {}, { producer: 'gateway', actor: 'ann' }, t0],
      ['plan_requested', {}, { producer: 'gateway', actor: 'ann' }, t0],
      ['plan_drafted', {}, { producer: 'planner', causationId: 'e2' }, t0],
      ['plan_generated', {}, { producer: 'validator', causationId: 'e3' }, t0],
      ['node_start', {}, { producer: 'executor', causationId: 'e4' }, t0],
      ['node_start', {}, { producer: 'executor', causationId: 'e4' }, t1],
      ['hitl_resolved', {}, { producer: 'gateway', actor: 'bob' }, t1],
      ['hitl_resolved', {}, { producer: 'gateway', actor: 'ann' }, t1],
    );
    expect(groupBatches(events).map((b) => b.events.map((e) => e.version))).toEqual([
      [1, 2],
      [3],
      [4],
      [5],
      [6],
      [7],
      [8],
    ]);
    expect(groupBatches(events)[1]).toMatchObject({ producer: 'planner', causationId: 'e2', timestamp: t0 });
  });

  it('keeps a batch whole however long, and has no batch for no events', () => {
    const many = stream(...Array.from({ length: 5 }, () => ['log', {}, { producer: 'executor' }] as const));
    expect(groupBatches(many).map((b) => b.events.length)).toEqual([5]);
    expect(groupBatches([])).toEqual([]);
  });
});
