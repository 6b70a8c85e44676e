import { pageOf } from './client';

const runs = (n: number) => Array.from({ length: n }, (_, i) => ({ runId: `run_${i}` }));

describe('pageOf: a page of runs from whatever GET runs answered', () => {
  it('uses the API’s cursor when it pages itself ({ runs, next })', () => {
    expect(pageOf({ runs: runs(2), next: 'c2' }, 0, 2)).toEqual({ runs: runs(2), next: 'c2' });
    expect(pageOf({ runs: runs(1), next: null }, 0, 2)).toEqual({ runs: runs(1), next: undefined });
  });

  it('cuts pages from a longer list otherwise ({ runs } or a plain array)', () => {
    expect(pageOf({ runs: runs(5) }, 0, 2)).toEqual({ runs: runs(2), next: 'offset:2' });
    expect(pageOf(runs(5), 2, 2)).toEqual({ runs: runs(5).slice(2, 4), next: 'offset:4' });
    expect(pageOf(runs(5), 4, 2)).toEqual({ runs: runs(5).slice(4), next: undefined });
  });
});
