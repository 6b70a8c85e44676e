import { startPostgres } from './postgres-server';
import { startNats } from './nats-server';

/**
 * Starts the real servers integration specs talk to, once per jest run: a throwaway Postgres and a
 * throwaway NATS with JetStream, unless FLEX_TEST_DATABASE_URL / FLEX_TEST_NATS_URL name running
 * ones. Workers inherit the URLs through the environment. A server that cannot be had fails the
 * run with the reason: no spec is skipped for want of one.
 */
export default async function globalSetup(): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  if (!process.env.FLEX_TEST_DATABASE_URL) {
    const pg = await startPostgres();
    process.env.FLEX_TEST_DATABASE_URL = pg.url;
    stops.push(pg.stop);
  }
  if (!process.env.FLEX_TEST_NATS_URL) {
    const nats = await startNats();
    process.env.FLEX_TEST_NATS_URL = nats.url;
    stops.push(nats.stop);
  }
  (globalThis as Record<string, unknown>).__flexTestServers = stops;
}
