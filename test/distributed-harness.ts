import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { natsTestUrl, startNodeProcess, type ManagedProcess } from '@flex/testing';

const ROOT = join(__dirname, '..');

/** What every service process of a test system gets: its database, the test NATS, a prefix, the API tokens. */
export function serviceEnv(databaseUrl: string, prefix: string, apiTokens: string): Record<string, string> {
  return {
    FLEX_DATABASE_URL: databaseUrl,
    FLEX_NATS_URL: natsTestUrl(),
    FLEX_NATS_PREFIX: prefix,
    FLEX_LOG_LEVEL: 'warn',
    FLEX_API_TOKENS: apiTokens,
  };
}

/** A Flex service as its own process (`name` is the service, or `<service>-<n>` for one of several). */
export function startService(name: string, env: Record<string, string>): ManagedProcess {
  const service = name.replace(/-\d+$/, '');
  return startNodeProcess(name, join(ROOT, `services/${service}/dist/main.js`), env, ROOT);
}

/** One line of the slow agents' log: an agent call started or ended (see fixtures/slow-agents.js). */
export interface Invocation {
  event: 'start' | 'end';
  /** The idempotency key, `runId:nodeId:attempt`. */
  key: string;
  nodeId: string;
  at: number;
}

/** The capability of the sample envelope's first node, on which a test's fault lands when only it is slow. */
export const SAMPLE_FIRST_CAPABILITY = 'StrategyManagerAgent.briefing';

/**
 * The reference agents, each call taking `delayMs` (only those of the `delayed` capabilities when
 * given: the others answer at once), every call logged to `logFile`.
 */
export function startSlowAgents(
  prefix: string,
  delayMs: number,
  logFile: string,
  delayed: readonly string[] = [],
): ManagedProcess {
  return startNodeProcess(
    'slow-agents',
    join(__dirname, 'fixtures/slow-agents.js'),
    {
      FLEX_NATS_URL: natsTestUrl(),
      FLEX_NATS_PREFIX: prefix,
      SLOW_AGENT_DELAY_MS: String(delayMs),
      SLOW_AGENT_LOG: logFile,
      SLOW_AGENT_DELAYED: delayed.join(','),
    },
    ROOT,
  );
}

/** Every call the slow agents logged so far. */
export function readInvocations(logFile: string): Invocation[] {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Invocation);
}
