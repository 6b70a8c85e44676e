import { Poller } from './poller';
import { waitFor } from './store.spec-helper';

describe('Poller', () => {
  it('runs at once, again at once while the task says there is more, then waits for the interval', async () => {
    let runs = 0;
    const poller = new Poller(
      async () => ++runs < 3,
      60_000,
      () => undefined,
    );
    poller.start();
    await waitFor(() => runs === 3);
    await poller.stop();
    expect(runs).toBe(3);
  });

  it('runs early when woken, never two runs at a time, and survives a failing task', async () => {
    let runs = 0;
    let active = 0;
    let maxActive = 0;
    const errors: unknown[] = [];
    const poller = new Poller(
      async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((resolve) => setImmediate(resolve));
        active--;
        if (++runs === 2) throw new Error('boom');
        return false;
      },
      60_000,
      (error) => errors.push(error),
    );
    poller.start();
    await waitFor(() => runs === 1);
    for (let i = 0; i < 5; i++) poller.wake();
    await waitFor(() => runs === 2);
    poller.wake();
    await waitFor(() => runs === 3);
    await poller.stop();
    poller.wake();
    expect(maxActive).toBe(1);
    expect(errors).toHaveLength(1);
    expect(runs).toBe(3);
  });
});
