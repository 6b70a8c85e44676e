import { randomUUID } from 'node:crypto';
import { EventStore, type AppendResult, type NewEvent } from '@flex/event-store';
import fc from 'fast-check';
import { chaosNumber, openChaosDb, report, type ChaosDb } from './chaos-support';

const WRITERS = chaosNumber('FLEX_CHAOS_WRITERS', { full: 50, ci: 50 });
const TRIALS = chaosNumber('FLEX_CHAOS_WRITER_TRIALS', { full: 1000, ci: 80 });
/** Stores on pools of their own: their appends race in separate transactions, not one group. */
const SEPARATE_POOLS = 5;

/**
 * Optimistic concurrency under a crowd: in every trial WRITERS appends race with the same expected
 * version, through the real EventStore (group commit included). In some trials they all go through
 * one store (one process's group commit), in others they are spread over stores on separate pools,
 * so they race in concurrent transactions on the server. Exactly one wins each trial.
 */
describe(`chaos: ${WRITERS} concurrent writers with the same expected version, ${TRIALS} trials`, () => {
  let chaos: ChaosDb;
  let stores: EventStore[];

  beforeAll(async () => {
    chaos = await openChaosDb('chaos_writers');
    const pools = await Promise.all(Array.from({ length: SEPARATE_POOLS }, () => chaos.connect(3)));
    stores = [chaos.database, ...pools].map((db) => new EventStore(db.db));
  });
  afterAll(() => chaos?.close());

  it(
    'exactly one append wins per trial, the others get WRONG_EXPECTED_VERSION, no version gap',
    async () => {
      const streamId = `chaos-${randomUUID()}`;
      const seed = Number(process.env.FLEX_CHAOS_SEED ?? Date.now() % 2 ** 31);
      console.log(`[chaos] writers: fast-check seed=${seed} (FLEX_CHAOS_SEED=${seed} replays it)`);
      const figures = { trials: 0, winners: 0, wrongVersion: 0, otherErrors: 0, spreadTrials: 0 };
      const started = Date.now();
      const trial = fc.asyncProperty(
        fc.boolean(),
        fc.array(fc.nat(3), { minLength: WRITERS, maxLength: WRITERS }),
        async (spread, jitter) => {
          const version = await stores[0].streamVersion(streamId);
          const expectedVersion = version === 0 ? 'no_stream' : version;
          const outcomes = await Promise.allSettled(
            jitter.map(async (turns, writer): Promise<AppendResult> => {
              // A few turns of the event loop, so the submission order changes from trial to trial.
              for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
              const store = spread ? stores[writer % stores.length] : stores[0];
              return store.append(streamId, [attempt(version, writer)], { expectedVersion });
            }),
          );
          const won = outcomes.filter((o) => o.status === 'fulfilled');
          const codes = outcomes.flatMap((o) => (o.status === 'rejected' ? [codeOf(o.reason)] : []));
          const wrong = codes.filter((code) => code === 'WRONG_EXPECTED_VERSION').length;
          Object.assign(figures, {
            trials: figures.trials + 1,
            winners: figures.winners + won.length,
            wrongVersion: figures.wrongVersion + wrong,
            otherErrors: figures.otherErrors + codes.length - wrong,
            spreadTrials: figures.spreadTrials + (spread ? 1 : 0),
          });
          expect({ won: won.length, wrong, codes: codes.length }).toEqual({
            won: 1,
            wrong: WRITERS - 1,
            codes: WRITERS - 1,
          });
          expect(await stores[0].streamVersion(streamId)).toBe(version + 1);
        },
      );
      await fc.assert(trial, { numRuns: TRIALS, seed, endOnFailure: true });

      // Reconcile: one event per trial, versions 1..TRIALS with no gap, each the winner of its trial.
      const events = await stores[0].readStream(streamId);
      report('50 writers, one expected version', {
        ...figures,
        writers: WRITERS,
        durationMs: Date.now() - started,
      });
      expect(events.map((e) => e.version)).toEqual(Array.from({ length: TRIALS }, (_, i) => i + 1));
      expect(events.map((e) => (e.payload as { trial: number }).trial)).toEqual(
        events.map((e) => e.version - 1),
      );
      expect(figures).toEqual({
        trials: TRIALS,
        winners: TRIALS,
        wrongVersion: TRIALS * (WRITERS - 1),
        otherErrors: 0,
        spreadTrials: figures.spreadTrials,
      });
    },
    60_000 + TRIALS * 500,
  );
});

function attempt(trial: number, writer: number): NewEvent {
  return {
    id: randomUUID(),
    type: 'chaos_write',
    payload: { trial, writer },
    metadata: { correlationId: 'chaos' },
  };
}

function codeOf(error: unknown): string {
  return (error as { code?: string })?.code ?? String(error);
}
