import type { NatsAuthOptions } from '@flex/bus';
import type { FlexConfig } from './config';

/** How this process authenticates to NATS, from the validated config. */
export function natsAuthOf(config: FlexConfig): NatsAuthOptions {
  const tls =
    config.FLEX_NATS_TLS_CA !== undefined || config.FLEX_NATS_TLS_CERT !== undefined
      ? {
          caFile: config.FLEX_NATS_TLS_CA,
          certFile: config.FLEX_NATS_TLS_CERT,
          keyFile: config.FLEX_NATS_TLS_KEY,
        }
      : undefined;
  return {
    user: config.FLEX_NATS_USER,
    password: config.FLEX_NATS_PASSWORD,
    nkeySeed: config.FLEX_NATS_NKEY_SEED,
    credsFile: config.FLEX_NATS_CREDS,
    tls,
  };
}
