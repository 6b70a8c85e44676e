import { IdempotencyCache } from './idempotency-cache';

describe('IdempotencyCache', () => {
  it('computes a key once and replays it after', async () => {
    const cache = new IdempotencyCache<number>(10);
    let runs = 0;
    const compute = async () => ++runs;
    expect(await cache.run('k', compute)).toEqual({ value: 1, replayed: false });
    expect(await cache.run('k', compute)).toEqual({ value: 1, replayed: true });
    expect(runs).toBe(1);
  });

  it('shares a computation in flight', async () => {
    const cache = new IdempotencyCache<string>(10);
    let release!: (v: string) => void;
    let runs = 0;
    const compute = () => {
      runs++;
      return new Promise<string>((resolve) => (release = resolve));
    };
    const a = cache.run('k', compute);
    const b = cache.run('k', compute);
    release('done');
    expect(await Promise.all([a, b])).toEqual([
      { value: 'done', replayed: false },
      { value: 'done', replayed: true },
    ]);
    expect(runs).toBe(1);
  });

  it('forgets failures', async () => {
    const cache = new IdempotencyCache<number>(10);
    await expect(cache.run('k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await cache.run('k', async () => 7)).toEqual({ value: 7, replayed: false });
  });

  it('evicts the least recently used key past its capacity', async () => {
    const cache = new IdempotencyCache<string>(2);
    await cache.run('a', async () => 'a1');
    await cache.run('b', async () => 'b1');
    await cache.run('a', async () => 'a2'); // touches a
    await cache.run('c', async () => 'c1'); // evicts b
    expect(cache.size).toBe(2);
    expect(await cache.run('a', async () => 'a3')).toEqual({ value: 'a1', replayed: true });
    expect(await cache.run('b', async () => 'b2')).toEqual({ value: 'b2', replayed: false });
  });

  it('refuses a nonsensical capacity', () => {
    expect(() => new IdempotencyCache(-1)).toThrow(RangeError);
  });
});
