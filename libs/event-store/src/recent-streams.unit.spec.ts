import { RecentStreams } from './recent-streams';
import type { StoredEvent } from './types';

const event = (streamId: string, version: number) => ({ streamId, version }) as StoredEvent;
const versions = (events: StoredEvent[] | undefined) => events?.map((e) => e.version);

describe('RecentStreams', () => {
  it('gives the events after a version while it holds them all, and nothing it is unsure of', () => {
    const recent = new RecentStreams(2, 3);
    recent.record([1, 2, 3, 4].map((v) => event('a', v)));
    expect(versions(recent.after('a', 1))).toEqual([2, 3, 4]);
    expect(versions(recent.after('a', 4))).toEqual([]);
    expect(recent.after('a', 0)).toBeUndefined(); // version 1 is no longer kept
    expect(recent.after('a', 5)).toBeUndefined(); // past what was appended here
    recent.record([event('a', 7)]); // out of sequence: only what follows is known
    expect(recent.after('a', 4)).toBeUndefined();
    expect(versions(recent.after('a', 6))).toEqual([7]);
    recent.forget('a');
    expect(recent.after('a', 7)).toBeUndefined();
  });

  it('keeps the most recently appended streams', () => {
    const recent = new RecentStreams(2, 3);
    for (const id of ['a', 'b', 'c']) recent.record([event(id, 1)]);
    expect(recent.after('a', 1)).toBeUndefined();
    expect(versions(recent.after('c', 0))).toEqual([1]);
  });
});
