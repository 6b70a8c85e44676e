import { natsConnectionOptions, NatsMessaging, type NatsAuthOptions } from '@flex/bus';
import type { AgentLogger } from '@flex/agent-sdk';
import type { AgentProcessConfig } from './config';
import { InvocationCounter, startHealthServer } from './health-server';
import { startReferenceAgents, type ReferenceAgents } from './start-reference-agents';

export interface AgentProcess {
  agents: ReferenceAgents;
  /** Stop the agents (drain, deregister), then drain the NATS connection. */
  stop(reason: string): Promise<void>;
}

/**
 * What `main.ts` runs: serve /healthz and /metrics when a port is configured, connect to NATS
 * (retrying while it is not there yet), start the chosen reference agents, and register them
 * with whichever registry listens on the prefix.
 */
export async function startAgentProcess(
  config: AgentProcessConfig,
  logger: AgentLogger,
): Promise<AgentProcess> {
  const counter = new InvocationCounter();
  const health = config.port === undefined ? undefined : await startHealthServer(config.port, counter);
  // Bad credentials fail here, before anything connects.
  natsConnectionOptions(config.natsUrl, 'flex-agents', config.natsAuth);
  const messaging = await connectWithRetry(config.natsUrl, config.natsAuth, logger);
  logger.info('nats_connected', {
    url: config.natsUrl,
    prefix: config.prefix,
    llm: config.llm ? { baseUrl: config.llm.baseUrl, model: config.llm.model } : 'none',
  });
  const agents = await startReferenceAgents({
    messaging,
    prefix: config.prefix,
    identity: config.natsAuth.user,
    only: config.agents,
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    llm: config.llm,
    logger: counter.wrap(logger),
  });
  health?.attach(agents.handles);
  let stopping: Promise<void> | undefined;
  return {
    agents,
    stop: (reason) =>
      (stopping ??= (async () => {
        await agents.stop(reason);
        await messaging.drain();
        await health?.close();
        logger.info('nats_drained', { reason });
      })()),
  };
}

async function connectWithRetry(
  url: string,
  auth: NatsAuthOptions,
  logger: AgentLogger,
): Promise<NatsMessaging> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await NatsMessaging.connect(url, { auth, name: 'flex-agents' });
    } catch (error) {
      // Wrong credentials stay wrong: say so and stop, instead of knocking forever.
      if ((error as { code?: unknown }).code === 'AUTHORIZATION_VIOLATION') throw error;
      const delayMs = Math.min(10_000, 250 * 2 ** Math.min(attempt - 1, 10)) * (0.5 + Math.random() / 2);
      logger.warn('nats_unavailable', {
        url,
        attempt,
        retryInMs: Math.round(delayMs),
        reason: (error as Error).message,
      });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
