import { startPostgres } from './postgres-server';
import { startNats } from './nats-server';

/**
 * Starts the real servers integration specs talk to, once per jest run: a throwaway Postgres and a
 * throwaway NATS with JetStream, unless FLEX_TEST_DATABASE_URL / FLEX_TEST_NATS_URL name running
 * ones. Workers inherit the URLs through the environment. A server that cannot be had fails the
 * run with the reason: no spec is skipped for want of one. The two start side by side (initdb is
 * the slow one); when one fails, the other is stopped before the run fails.
 */
export default async function globalSetup(): Promise<void> {
  const [pg, nats] = await Promise.allSettled([
    process.env.FLEX_TEST_DATABASE_URL ? undefined : startPostgres(),
    process.env.FLEX_TEST_NATS_URL ? undefined : startNats(),
  ]);
  const started = [pg, nats].flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
  const failed = [pg, nats].find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((server) => server.stop()));
    throw failed.reason;
  }
  if (pg.status === 'fulfilled' && pg.value) process.env.FLEX_TEST_DATABASE_URL = pg.value.url;
  if (nats.status === 'fulfilled' && nats.value) process.env.FLEX_TEST_NATS_URL = nats.value.url;
  (globalThis as Record<string, unknown>).__flexTestServers = started.map((server) => server.stop);
}
