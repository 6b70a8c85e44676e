import { ProjectionRunner, type EventStore, type EventStoreDatabase } from '@flex/event-store';
import type { Kysely } from 'kysely';
import { capabilitiesProjection } from './capabilities.projection';
import { createRunsProjection } from './runs.projection';

const hosts = new WeakMap<EventStore, ProjectionRunner>();

/**
 * One projection runner per event store in a process (embedded mode shares one between services),
 * with its own runs projection (whose cache of run states belongs to that store's database).
 * Several processes may each run one: the checkpoint row lock makes them take turns.
 */
export function projectionsFor(db: Kysely<EventStoreDatabase>, store: EventStore): ProjectionRunner {
  let runner = hosts.get(store);
  if (!runner) {
    runner = new ProjectionRunner(db, store, [createRunsProjection(), capabilitiesProjection], {
      batchSize: 500,
      pollMs: 250,
    });
    hosts.set(store, runner);
  }
  return runner;
}
