import fc from 'fast-check';
import { KeyedLock } from './keyed-lock';

describe('KeyedLock', () => {
  it('runs the tasks of a key one at a time, in arrival order, whatever fails', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ key: fc.constantFrom('a', 'b', 'c'), fails: fc.boolean() }), { maxLength: 40 }),
        async (tasks) => {
          const lock = new KeyedLock();
          const running = new Map<string, number>();
          const order = new Map<string, number[]>();
          const settled = tasks.map(({ key, fails }, i) =>
            lock
              .run(key, async () => {
                running.set(key, (running.get(key) ?? 0) + 1);
                expect(running.get(key)).toBe(1);
                order.set(key, [...(order.get(key) ?? []), i]);
                await Promise.resolve();
                running.set(key, (running.get(key) ?? 0) - 1);
                if (fails) throw new Error('task failed');
                return i;
              })
              .then(
                (value) => expect(value).toBe(i),
                (error: Error) => expect(error.message).toBe('task failed'),
              ),
          );
          await Promise.all(settled);
          for (const indexes of order.values()) expect(indexes).toEqual([...indexes].sort((x, y) => x - y));
        },
      ),
    );
  });
});
