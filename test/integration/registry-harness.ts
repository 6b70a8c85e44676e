import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createGatewayApp, parseApiTokens } from '@flex/gateway';
import { readModelMigrations } from '@flex/read-models';
import { createDistributedRuntime, loadConfig, type Clock, type ServiceRuntime } from '@flex/runtime';
import { createTestDatabase, natsTestUrl, type TestDatabase } from '@flex/testing';
import { RegistryModule } from '../../services/registry/src/registry.module';
import { RegistryService } from '../../services/registry/src/registry.service';
import type { RegistrationRate } from '../../services/registry/src/capability/registration-rate';

/** A clock a test moves by hand: the registry reads only `runtime.clock`, so expiry follows it. */
export class MovableClock implements Clock {
  constructor(private at = Date.now()) {}
  now(): Date {
    return new Date(this.at);
  }
  advance(ms: number): void {
    this.at += ms;
  }
}

export interface RegistryHarness {
  runtime: ServiceRuntime;
  clock: MovableClock;
  registry: RegistryService;
  /** Base URL of a real gateway on the same runtime, when asked for. */
  gatewayUrl?: string;
  close(): Promise<void>;
}

export const AGENT_TOKEN = 'agent-token';
export const CLIENT_TOKEN = 'client-token';

/** A registry (and optionally a gateway) on real Postgres and NATS, with a clock the test controls. */
export async function startRegistryHarness(
  label: string,
  prefix: string,
  options: {
    gateway?: boolean;
    sweepIntervalMs?: number;
    registrationRate?: RegistrationRate;
    /** `token:role` pairs the gateway accepts (default: the agent and client tokens). */
    tokens?: string;
    /** Configuration beyond the test servers' (e.g. another NATS and its credentials). */
    env?: Record<string, string>;
  } = {},
): Promise<RegistryHarness> {
  const database: TestDatabase = await createTestDatabase(label);
  const config = loadConfig({
    FLEX_DATABASE_URL: database.url,
    FLEX_NATS_URL: natsTestUrl(),
    FLEX_NATS_PREFIX: prefix,
    FLEX_LOG_LEVEL: 'silent',
    ...options.env,
  });
  const base = await createDistributedRuntime(config, {
    service: 'registry',
    migrations: readModelMigrations,
  });
  const clock = new MovableClock();
  const runtime: ServiceRuntime = { ...base, clock };
  const context: INestApplicationContext = await NestFactory.createApplicationContext(
    RegistryModule.forRuntime(runtime, {
      http: false,
      sweepIntervalMs: options.sweepIntervalMs ?? 50,
      registrationRate: options.registrationRate,
    }),
    { logger: ['error'] },
  );
  await context.init();
  let gateway: INestApplication | undefined;
  let gatewayUrl: string | undefined;
  if (options.gateway) {
    const tokens = options.tokens ?? `${AGENT_TOKEN}:agent,${CLIENT_TOKEN}:client`;
    gateway = await createGatewayApp(runtime, parseApiTokens(tokens));
    await gateway.listen(0, '127.0.0.1');
    gatewayUrl = `http://127.0.0.1:${(gateway.getHttpServer().address() as { port: number }).port}`;
  }
  return {
    runtime,
    clock,
    registry: context.get(RegistryService),
    gatewayUrl,
    async close() {
      await gateway?.close();
      await context.close();
      await base.close();
      await database.drop();
    },
  };
}
