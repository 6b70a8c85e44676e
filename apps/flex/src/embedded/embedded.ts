import type { INestApplication, INestApplicationContext, INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { llmConfigFrom, startReferenceAgents } from '@flex/agents-reference';
import { ExecutorModule } from '@flex/executor';
import { createGatewayApp, resolveApiTokens, type ApiTokens } from '@flex/gateway';
import { PlannerModule } from '@flex/planner';
import { readModelMigrations } from '@flex/read-models';
import { RegistryModule } from '@flex/registry';
import { FlexEventErrorFilter } from '@flex/bus';
import {
  bindHost,
  createEmbeddedRuntime,
  eventsTransport,
  nestLogger,
  type FlexConfig,
  type RuntimeOptions,
  type ServiceRuntime,
} from '@flex/runtime';
import { ValidatorModule } from '@flex/validator';
import { gatewayWhatIf } from '../replay/replay-adapters';
import { lockDataDir } from './data-dir.lock';
import { awaitShippedCapabilities } from './shipped-capabilities';

export interface EmbeddedOptions {
  config: FlexConfig;
  /** null: keep the database in memory (tests). Default: `<FLEX_DATA_DIR>/pg`. */
  dataDir?: string | null;
  /** Start the reference agents in-process (default true). */
  agents?: boolean;
  /**
   * Resolve only once Flex is ready (GET /readyz: the reference agents registered, the read models
   * caught up), rejecting if it cannot be; default true. With false, resolve once it listens.
   */
  waitUntilReady?: boolean;
  /** Spans also go here, each as it ends, besides what OTEL_* configures (tests: an in-memory exporter). */
  traceExporter?: RuntimeOptions['traceExporter'];
}

export interface EmbeddedFlex {
  /** Where to reach the API: the bound address (loopback for a wildcard bind). */
  url: string;
  /** The address the server is bound to (FLEX_HOST, default 127.0.0.1). */
  host: string;
  port: number;
  tokens: ApiTokens;
  runtime: ServiceRuntime;
  close(): Promise<void>;
}

/**
 * All five services, the reference agents and the API in one process (DESIGN §4): one runtime
 * (PGlite + a store-backed bus + in-process messaging), the same modules as distributed mode.
 */
export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedFlex> {
  const { config } = options;
  const unlock =
    options.dataDir === null || config.FLEX_DATABASE_URL
      ? () => undefined
      : await lockDataDir(config.FLEX_DATA_DIR);
  let tokens: ApiTokens;
  try {
    // Before anything starts: a bad FLEX_API_TOKENS is a refusal in one line, not a half-started system.
    tokens = resolveApiTokens(config.FLEX_API_TOKENS, config.FLEX_DATA_DIR);
  } catch (error) {
    unlock();
    throw error;
  }
  const runtime = await createEmbeddedRuntime(config, {
    service: 'flex',
    migrations: readModelMigrations,
    dataDir: options.dataDir,
    traceExporter: options.traceExporter,
  }).catch((error) => {
    unlock();
    throw error;
  });
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const registry: INestApplicationContext = await NestFactory.createApplicationContext(
      RegistryModule.forRuntime(runtime, { http: false }),
      { logger: nestLogger(runtime.logger) },
    );
    await registry.init();
    closers.push(() => registry.close());
    if (options.agents !== false) {
      // FLEX_LLM_* (already validated in config) switch the reference agents to an OpenAI-compatible model.
      const agents = await startReferenceAgents({
        messaging: runtime.messaging,
        prefix: runtime.prefix,
        llm: llmConfigFrom(config),
      });
      closers.push(() => agents.stop());
      const shipped = awaitShippedCapabilities(runtime, agents);
      closers.push(async () => shipped.stop());
    }
    const consumers: Array<
      [string, (rt: ServiceRuntime) => ReturnType<typeof PlannerModule.forRuntime>, number]
    > = [
      ['planner', (rt) => PlannerModule.forRuntime(rt, { http: false }), 8],
      ['validator', (rt) => ValidatorModule.forRuntime(rt, { http: false }), 8],
      ['executor', (rt) => ExecutorModule.forRuntime(rt, { http: false }), 32],
    ];
    for (const [name, module, concurrency] of consumers) {
      const service: INestMicroservice = await NestFactory.createMicroservice(module(runtime), {
        strategy: eventsTransport(runtime, name, concurrency),
        logger: nestLogger(runtime.logger),
      });
      service.useGlobalFilters(new FlexEventErrorFilter());
      await service.listen();
      closers.push(() => service.close());
    }
    const gateway: INestApplication = await createGatewayApp(runtime, tokens, gatewayWhatIf(config));
    const host = bindHost(config, 'embedded');
    await gateway.listen(config.PORT, host);
    closers.push(() => gateway.close());
    const address = gateway.getHttpServer().address() as { port: number };
    if (options.waitUntilReady !== false) await runtime.readiness.whenStarted();
    return {
      url: `http://${reachable(host)}:${address.port}`,
      host,
      port: address.port,
      tokens,
      runtime,
      async close() {
        // GET /readyz says `stopping`, new runs are refused and the event streams end at once.
        runtime.readiness.stop();
        for (const close of closers.reverse())
          await close().catch((error) => runtime.logger.warn('close failed', { error }));
        await runtime.close();
        unlock();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await runtime.close();
    unlock();
    throw error;
  }
}

/** The address a client on this machine uses for `host`: a wildcard bind is reached on loopback. */
function reachable(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
