import { createLogger, loadTracingConfig, startTracing } from '@flex/runtime';
import { startAgentProcess } from './agent-process';
import { loadAgentConfig } from './config';

/**
 * The reference agents as a standalone process, registering over NATS like any third party:
 * FLEX_NATS_URL, FLEX_NATS_PREFIX (default flex), FLEX_AGENTS (comma list of capability ids,
 * default all), PORT (optional: /healthz and /metrics), FLEX_LLM_BASE_URL / FLEX_LLM_API_KEY /
 * FLEX_LLM_MODEL (optional: answer through an OpenAI-compatible API). SIGTERM/SIGINT drain in-flight
 * invocations, deregister, and exit. One JSON line per event on stdout, from FLEX_LOG_LEVEL (info).
 * OTEL_* export traces (docs/OBSERVABILITY.md).
 */
async function main(): Promise<void> {
  const config = loadAgentConfig(process.env);
  const logger = createLogger({ service: 'agents-reference', level: config.logLevel });
  // OTEL_* as for the services: each invocation is a span of its run's trace (service flex-agents-reference).
  const tracing = startTracing(loadTracingConfig(process.env), 'agents-reference');
  const running = await startAgentProcess(config, logger);
  const shutdown = (reason: string, code: number) => {
    running
      .stop(reason)
      .then(() => tracing.shutdown())
      .then(
        () => process.exit(code),
        (error: unknown) => {
          logger.error('shutdown_failed', { reason: (error as Error).message });
          process.exit(1);
        },
      );
  };
  let signalled = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (signalled) process.exit(1);
      signalled = true;
      logger.info('signal_received', { signal });
      shutdown(`signal:${signal}`, 0);
    });
  }
  running.agents.ready.then(
    () => logger.info('agents_ready', { agents: config.agents }),
    (error: unknown) => {
      logger.error('agent_registration_rejected', {
        reason: (error as Error).message,
        code: (error as { code?: unknown }).code,
      });
      shutdown('registration_rejected', 1);
    },
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'agents_failed', reason: (error as Error).message, code: (error as { code?: unknown }).code })}\n`,
  );
  process.exit(1);
});
