import type { Checkpoint } from '@flex/event-store';
import { CheckpointBeat } from './checkpoint-beat';
import { at, MemoryEventLog } from './test-support/memory-event-log';

/** A log that counts its checkpoint writes, by kind. */
function countingLog(fail = false) {
  const log = new MemoryEventLog();
  const writes: Array<Map<string, Checkpoint>> = [];
  return {
    writes,
    log: Object.assign(log, {
      async saveCheckpoints(saves: ReadonlyMap<string, Checkpoint>) {
        if (fail) throw new Error('disk full');
        writes.push(new Map(saves));
        for (const [name, checkpoint] of saves) await log.saveCheckpoint(name, checkpoint);
      },
    }),
  };
}

describe('CheckpointBeat', () => {
  it('calls every durable due on one beat, and writes the saves of one turn in one statement', async () => {
    const { log, writes } = countingLog();
    const beat = new CheckpointBeat(log, 5);
    const saved = new Promise<void>((resolve) => {
      let due = 0;
      const save = (name: string, position: number) => () => {
        void beat.save(name, at(position)).then(() => ++due === 3 && resolve());
      };
      beat.soon(save('bus:a', 1));
      beat.soon(save('bus:b', 2));
      beat.soon(save('bus:c', 3));
    });
    await saved;
    expect(writes).toEqual([
      new Map([
        ['bus:a', at(1)],
        ['bus:b', at(2)],
        ['bus:c', at(3)],
      ]),
    ]);
    expect(await log.loadCheckpoint('bus:b')).toEqual(at(2));
  });

  it('keeps the later of two saves of one name, and a cancelled callback is not called', async () => {
    const { log } = countingLog();
    const beat = new CheckpointBeat(log, 5);
    await Promise.all([beat.save('bus:a', at(1)), beat.save('bus:a', at(4))]);
    expect(await log.loadCheckpoint('bus:a')).toEqual(at(4));
    let called = false;
    const cancel = beat.soon(() => (called = true));
    cancel();
    await new Promise<void>((resolve) => beat.soon(resolve));
    expect(called).toBe(false);
  });

  it('rejects every save of a failed write', async () => {
    const { log } = countingLog(true);
    const beat = new CheckpointBeat(log, 5);
    const results = await Promise.allSettled([beat.save('bus:a', at(1)), beat.save('bus:b', at(2))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await log.loadCheckpoint('bus:a')).toBeUndefined();
  });
});
