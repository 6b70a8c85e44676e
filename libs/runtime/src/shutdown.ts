import type { INestApplication } from '@nestjs/common';
import type { RunningProcess } from './process';
import type { ServiceRuntime } from './runtime';

/** Where a service takes work from the bus: closing it stops pulling and waits for the handlers in hand. */
export interface WorkIntake {
  close(): Promise<void>;
}

/**
 * How a service process stops (run by `runProcess` on SIGTERM, within FLEX_SHUTDOWN_GRACE_MS):
 * 1. readiness says `stopping` at once (GET /readyz 503; the gateway refuses new runs and ends its
 *    event streams, whose clients reconnect to another gateway with Last-Event-ID);
 * 2. the bus consumer stops pulling and the handlers in flight finish (their events committed and
 *    acknowledged); what it had not pulled stays with the other instances;
 * 3. the HTTP server closes, then the runtime (outbox relay, NATS, Postgres).
 */
export function drainingStop(
  runtime: ServiceRuntime,
  app: INestApplication,
  intake?: WorkIntake,
): RunningProcess {
  const graceMs = runtime.config.FLEX_SHUTDOWN_GRACE_MS;
  return {
    graceMs,
    async stop() {
      runtime.logger.info('service stopping: draining the work in hand', { graceMs });
      runtime.readiness.stop();
      await intake?.close();
      await app.close();
      await runtime.close();
      runtime.logger.info('service stopped');
    },
  };
}
