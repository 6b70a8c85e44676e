import { InProcessMessaging, registrySubjects } from '@flex/bus';
import { defineAgent } from './define-agent';
import { startAgent } from './start-agent';

const agent = (capabilityId: string) =>
  defineAgent({
    registration: {
      capabilityId,
      version: '1',
      displayName: 'A',
      summary: 'A.',
      inputContract: ['writerBrief'],
      outputContract: ['copyVariants'],
    },
    handle: async () => ({ copyVariants: [] }),
  });

describe('handleSignals', () => {
  it('on SIGTERM stops every agent started with it (deregistering each), then exits once', async () => {
    const messaging = new InProcessMessaging({ logger: { warn: () => undefined, error: () => undefined } });
    const subjects = registrySubjects('sig');
    const deregistered: unknown[] = [];
    await messaging.serve(subjects.registerAll, {}, async (req) => ({
      ok: true,
      ...(req.data as object),
      status: 'active',
    }));
    await messaging.serve(subjects.deregisterAll, {}, async (req) => void deregistered.push(req.data));
    const exits: number[] = [];
    const exit = jest
      .spyOn(process, 'exit')
      .mockImplementation(((code: number) => void exits.push(code)) as never);
    const listenersBefore = process.listenerCount('SIGTERM');
    try {
      const handles = [
        await startAgent(agent('a.one'), { messaging, prefix: 'sig', handleSignals: true }),
        await startAgent(agent('a.two'), { messaging, prefix: 'sig', handleSignals: true }),
      ];
      await Promise.all(handles.map((h) => h.ready));
      expect(process.listenerCount('SIGTERM')).toBe(listenersBefore + 1);
      process.emit('SIGTERM', 'SIGTERM');
      const deadline = Date.now() + 5_000;
      while (exits.length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(exits).toEqual([0]);
      expect(deregistered).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ capabilityId: 'a.one', reason: 'signal:SIGTERM' }),
          expect.objectContaining({ capabilityId: 'a.two', reason: 'signal:SIGTERM' }),
        ]),
      );
      expect(process.listenerCount('SIGTERM')).toBe(listenersBefore);
    } finally {
      exit.mockRestore();
      await messaging.drain();
    }
  });

  it('removes its listener when the last such agent stops by itself', async () => {
    const messaging = new InProcessMessaging({ logger: { warn: () => undefined, error: () => undefined } });
    const before = process.listenerCount('SIGINT');
    const handle = await startAgent(agent('a.three'), { messaging, prefix: 'sig2', handleSignals: true });
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    await handle.stop();
    expect(process.listenerCount('SIGINT')).toBe(before);
    await messaging.drain();
  });
});
