import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FlexEventErrorFilter, FlexEventsTransport } from '@flex/bus';
import { runIdFromStreamId } from '@flex/contracts';
import { recordDeadLetter } from '@flex/event-store';
import { bindHost, loadConfig } from './config';
import { failRunOfDeadLetter } from './dead-letter';
import type { RunningProcess } from './process';
import type { ServiceRuntime } from './runtime';
import { countingDeliveries } from './telemetry/metrics-bus';
import { boundedLabel } from './telemetry/metrics-events';
import { createDistributedRuntime, type RuntimeOptions } from './runtime.factory';
import { nestLogger } from './telemetry/nest-logger';
import { drainingStop } from './shutdown';

export interface ServiceDefinition {
  name: string;
  /** The service's Nest module, bound to a runtime. */
  module: (runtime: ServiceRuntime) => DynamicModule;
  /** Whether the service consumes bus events through @EventPattern handlers. */
  consumesEvents: boolean;
  migrations?: RuntimeOptions['migrations'];
  concurrency?: number;
}

/** The durable JetStream transport every instance of a service shares. */
export function eventsTransport(
  runtime: ServiceRuntime,
  service: string,
  concurrency = 16,
): FlexEventsTransport {
  return new FlexEventsTransport({
    bus: countingDeliveries(runtime.bus, runtime.metrics, service),
    durable: service,
    concurrency,
    maxDeliver: runtime.config.FLEX_BUS_MAX_DELIVER,
    // A crashed instance's unacked work goes to another after this; long handlers call working().
    ackWaitMs: runtime.config.FLEX_BUS_ACK_WAIT_MS,
    onDeadLetter: async (dead) => {
      runtime.logger.error('dead letter', {
        consumer: dead.consumer,
        eventId: dead.event.id,
        type: dead.event.type,
        runId: runIdFromStreamId(dead.event.streamId),
        traceparent: dead.event.metadata.traceparent,
        reason: dead.reason,
      });
      await recordDeadLetter(runtime.database.db, dead);
      runtime.metrics.count({ family: 'busDeadLetters', labels: { consumer: boundedLabel(dead.consumer) } });
      // A run whose message no handler can take would stay running forever: it fails instead.
      await failRunOfDeadLetter(runtime, dead);
    },
  });
}

/**
 * Distributed entry point of one service: its own process, HTTP health on PORT, events over
 * JetStream. Returns how it stops (see `runProcess` and `drainingStop`).
 */
export async function startDistributedService(definition: ServiceDefinition): Promise<RunningProcess> {
  const config = loadConfig();
  const runtime = await createDistributedRuntime(config, {
    service: definition.name,
    migrations: definition.migrations,
  });
  const app = await NestFactory.create(definition.module(runtime), { logger: nestLogger(runtime.logger) });
  // Keeps a handler's error code and retryable flag visible to the transport (Nest would hide them).
  app.useGlobalFilters(new FlexEventErrorFilter());
  const intake = definition.consumesEvents
    ? eventsTransport(runtime, definition.name, definition.concurrency)
    : undefined;
  if (intake) {
    app.connectMicroservice({ strategy: intake }, { inheritAppConfig: true });
    await app.startAllMicroservices();
  }
  const host = bindHost(config, 'distributed');
  await app.listen(config.PORT, host);
  runtime.logger.info('service started', { host, port: config.PORT, mode: runtime.mode });
  return drainingStop(runtime, app, intake);
}
