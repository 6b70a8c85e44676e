import { randomBytes } from 'node:crypto';

/**
 * A subject prefix unique to one spec file (and one run): `t_<label>_<random>`, made only of
 * [a-z0-9_] so it is also a valid JetStream stream name. Give each spec file its own.
 */
export function testPrefix(label: string): string {
  const safe =
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 24) || 'spec';
  return `t_${safe}_${randomBytes(4).toString('hex')}`;
}

/** The throwaway NATS server globalSetup started (or the one FLEX_TEST_NATS_URL names). */
export function natsTestUrl(): string {
  const url = process.env.FLEX_TEST_NATS_URL;
  if (!url) {
    throw new Error(
      'FLEX_TEST_NATS_URL is not set: run integration specs through jest (its globalSetup starts nats-server) ' +
        'or point FLEX_TEST_NATS_URL at a running nats-server started with -js',
    );
  }
  return url;
}
