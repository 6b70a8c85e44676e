import { RecentStreams } from './recent-streams';
import type { StoredEvent } from './types';

const event = (streamId: string, version: number) => ({ streamId, version }) as StoredEvent;
const versions = (events: StoredEvent[] | undefined) => events?.map((e) => e.version);

describe('RecentStreams', () => {
  it('gives the events after a version while it holds them all, and nothing it is unsure of', () => {
    const recent = new RecentStreams(6, 3);
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

  it('holds at most its number of events in all, forgetting the streams appended to least lately', () => {
    const recent = new RecentStreams(5, 10);
    recent.record([1, 2, 3].map((v) => event('a', v)));
    recent.record([1, 2].map((v) => event('b', v)));
    expect(versions(recent.after('a', 0))).toEqual([1, 2, 3]); // 5 events: all kept
    recent.record([event('a', 4)]); // 6: b (appended to before a's last) goes
    expect(recent.after('b', 0)).toBeUndefined();
    expect(versions(recent.after('a', 0))).toEqual([1, 2, 3, 4]);
    recent.forget('a');
    recent.record([1, 2, 3, 4, 5].map((v) => event('c', v))); // a's events no longer count
    expect(versions(recent.after('c', 0))).toEqual([1, 2, 3, 4, 5]);
    recent.record([event('a', 1)]); // a new stream pushes out the oldest whole: c
    expect(recent.after('c', 0)).toBeUndefined();
    expect(versions(recent.after('a', 0))).toEqual([1]);
  });
});
