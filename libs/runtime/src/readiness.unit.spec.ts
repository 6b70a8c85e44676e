import { Readiness } from './readiness';

describe('Readiness: ready to take work, apart from alive', () => {
  it('is starting until every startup step is done, then ready; a step done stays done', async () => {
    const readiness = new Readiness();
    readiness.done('migrations');
    readiness.pending('agents', 'waiting for W to register');
    expect(readiness.started).toBe(false);
    expect(await readiness.report()).toEqual({
      status: 'starting',
      checks: { agents: { ok: false, detail: 'waiting for W to register' }, migrations: { ok: true } },
    });
    const started = readiness.whenStarted();
    readiness.done('agents', '1 registered');
    await started;
    expect(readiness.started).toBe(true);
    expect((await readiness.report()).status).toBe('ready');
  });

  it('asks live checks on every report: a failing one makes a ready process unready, not starting', async () => {
    const readiness = new Readiness();
    let up = true;
    readiness.watch('database', async () => (up ? { ok: true } : { ok: false, detail: 'no answer' }));
    expect((await readiness.report()).status).toBe('ready');
    up = false;
    expect(await readiness.report()).toEqual({
      status: 'unready',
      checks: { database: { ok: false, detail: 'no answer' } },
    });
    expect(readiness.started).toBe(true);
  });

  it('a check that throws or hangs fails, without its error text', async () => {
    jest.useFakeTimers();
    try {
      const readiness = new Readiness();
      readiness.watch('nats', () => Promise.reject(new Error('nats://user:pass@host refused')));
      readiness.watch('slow', () => new Promise(() => undefined));
      const report = readiness.report();
      await jest.advanceTimersByTimeAsync(2_500);
      expect(await report).toEqual({
        status: 'starting',
        checks: {
          nats: { ok: false, detail: 'the check failed' },
          slow: { ok: false, detail: 'no answer in 2000 ms' },
        },
      });
    } finally {
      jest.useRealTimers();
    }
  });

  it('a failed step rejects whoever waits for the start', async () => {
    const readiness = new Readiness();
    readiness.pending('agents');
    const started = readiness.whenStarted();
    readiness.failed('agents', 'the registry refused W');
    await expect(started).rejects.toThrow('agents: the registry refused W');
    expect((await readiness.report()).checks.agents).toEqual({ ok: false, detail: 'the registry refused W' });
  });

  it('stop(): stopping for good at once, without asking the live checks; listeners run once', async () => {
    const readiness = new Readiness();
    let asked = 0;
    readiness.watch('database', async () => {
      asked++;
      return { ok: true };
    });
    expect((await readiness.report()).status).toBe('ready');
    const heard: string[] = [];
    readiness.onStop(() => heard.push('early'));
    const removed = readiness.onStop(() => heard.push('removed'));
    removed();
    expect(readiness.stopping).toBe(false);
    readiness.stop();
    readiness.stop('again');
    readiness.onStop(() => heard.push('late'));
    expect(heard).toEqual(['early', 'late']);
    expect(readiness.stopping).toBe(true);
    expect(readiness.started).toBe(true);
    asked = 0;
    expect(await readiness.report()).toEqual({
      status: 'stopping',
      checks: { shutdown: { ok: false, detail: 'shutting down: finishing the work in hand' } },
    });
    expect(asked).toBe(0);
  });
});
