import { randomUUID } from 'node:crypto';
import type { AppendItem } from './append';
import { GroupQueue, Queued } from './group-queue';

const append = (streamId: string, key?: string, id = randomUUID()): AppendItem => ({
  streamId,
  events: [{ id, type: 't', payload: {}, metadata: { correlationId: 'c' } }],
  options: { expectedVersion: 'any', idempotencyKey: key },
});
const unit = (...items: AppendItem[]): Queued => ({ items });
const streams = (units: Queued[] | undefined) => units?.map((u) => u.items.map((i) => i.streamId).join('+'));

describe('GroupQueue', () => {
  it('takes appends in order, several of one stream together, up to the limit', () => {
    const queue = new GroupQueue<Queued>();
    ['a', 'b', 'a', 'c'].forEach((s) => queue.push(unit(append(s))));
    expect(streams(queue.take(3)?.units)).toEqual(['a', 'b', 'a']);
    expect(streams(queue.take(3)?.units)).toEqual(['c']);
    expect(queue.length).toBe(0);
  });

  it('holds back what shares a stream, key or event id with a group in flight, and what follows it', () => {
    const queue = new GroupQueue<Queued>();
    const id = randomUUID();
    queue.push(unit(append('a', 'k1', id)));
    const first = queue.take(1);
    queue.push(unit(append('a')));
    queue.push(unit(append('b', 'k1')));
    queue.push(unit(append('c', undefined, id)));
    queue.push(unit(append('d')));
    expect(streams(queue.take(10)?.units)).toEqual(['d']);
    expect(queue.take(10)).toBeUndefined();
    queue.release(first ?? { units: [], resources: new Set() });
    expect(streams(queue.take(10)?.units)).toEqual(['a', 'b', 'c']);
  });

  it('keeps a stream behind an append skipped before it', () => {
    const queue = new GroupQueue<Queued>();
    queue.push(unit(append('a')));
    const first = queue.take(1);
    queue.push(unit(append('a'), append('b')));
    queue.push(unit(append('b')));
    queue.push(unit(append('c')));
    expect(streams(queue.take(10)?.units)).toEqual(['c']);
    queue.release(first ?? { units: [], resources: new Set() });
    expect(streams(queue.take(10)?.units)).toEqual(['a+b']);
  });

  it('commits a batch alone', () => {
    const queue = new GroupQueue<Queued>();
    queue.push(unit(append('a'), append('b')));
    queue.push(unit(append('c')));
    queue.push(unit(append('d'), append('e')));
    expect(streams(queue.take(10)?.units)).toEqual(['a+b']);
    expect(streams(queue.take(10)?.units)).toEqual(['c']);
    expect(streams(queue.take(10)?.units)).toEqual(['d+e']);
  });
});
