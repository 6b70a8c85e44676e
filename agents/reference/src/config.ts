import type { NatsAuthOptions } from '@flex/bus';
import { LOG_LEVELS, type LogLevel } from '@flex/runtime';
import { z } from 'zod';
import { llmConfigFrom, LlmConfigError, type LlmConfig } from './llm/llm.config';
import { referenceAgents } from './start-reference-agents';

const KNOWN = referenceAgents.map((a) => a.registration.capabilityId);

const ConfigSchema = z.object({
  FLEX_NATS_URL: z.string().min(1, 'FLEX_NATS_URL is required'),
  FLEX_NATS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/)
    .default('flex'),
  FLEX_AGENTS: z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [...KNOWN],
    )
    .pipe(z.array(z.enum(KNOWN as [string, ...string[]])).min(1)),
  FLEX_AGENT_HEARTBEAT_MS: z.coerce.number().int().positive().optional(),
  /**
   * The NATS identity the agents connect and register as (the owner of their capabilities), and
   * its credentials: a password or an NKey seed; TLS: the CA of the server's certificate, and a
   * client certificate and key for mutual TLS. The same names the services read.
   */
  FLEX_NATS_USER: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
  FLEX_NATS_PASSWORD: z.string().optional(),
  FLEX_NATS_NKEY_SEED: z.string().optional(),
  FLEX_NATS_CREDS: z.string().optional(),
  FLEX_NATS_TLS_CA: z.string().optional(),
  FLEX_NATS_TLS_CERT: z.string().optional(),
  FLEX_NATS_TLS_KEY: z.string().optional(),
  /** HTTP port of /healthz and /metrics; no HTTP server when unset. */
  PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  /** The quietest level written as a JSON line on stdout (as the services: docs/OBSERVABILITY.md). */
  FLEX_LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
});

export interface AgentProcessConfig {
  natsUrl: string;
  /** How to authenticate to NATS; `user` is also the identity the agents register as. */
  natsAuth: NatsAuthOptions;
  prefix: string;
  agents: readonly string[];
  heartbeatIntervalMs?: number;
  port?: number;
  /** Set when FLEX_LLM_BASE_URL is: the agents answer through that API, falling back to their deterministic logic. */
  llm?: LlmConfig;
  logLevel: LogLevel;
}

export class AgentConfigError extends Error {
  override readonly name = 'AgentConfigError';
  readonly code = 'INVALID_CONFIG';
  readonly retryable = false;
}

/** The process's only reader of the environment: parsed once, failing fast. Empty strings count as unset. */
export function loadAgentConfig(env: NodeJS.ProcessEnv): AgentProcessConfig {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ConfigSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new AgentConfigError(
      `invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  const c = parsed.data;
  let llm: LlmConfig | undefined;
  try {
    llm = llmConfigFrom(cleaned);
  } catch (error) {
    throw new AgentConfigError((error as LlmConfigError).message);
  }
  return Object.freeze({
    natsUrl: c.FLEX_NATS_URL,
    natsAuth: natsAuthOf(c),
    prefix: c.FLEX_NATS_PREFIX,
    agents: Object.freeze(c.FLEX_AGENTS),
    heartbeatIntervalMs: c.FLEX_AGENT_HEARTBEAT_MS,
    port: c.PORT,
    llm,
    logLevel: c.FLEX_LOG_LEVEL,
  });
}

function natsAuthOf(c: z.output<typeof ConfigSchema>): NatsAuthOptions {
  const tls =
    c.FLEX_NATS_TLS_CA !== undefined || c.FLEX_NATS_TLS_CERT !== undefined
      ? { caFile: c.FLEX_NATS_TLS_CA, certFile: c.FLEX_NATS_TLS_CERT, keyFile: c.FLEX_NATS_TLS_KEY }
      : undefined;
  const auth: NatsAuthOptions = {
    user: c.FLEX_NATS_USER,
    password: c.FLEX_NATS_PASSWORD,
    nkeySeed: c.FLEX_NATS_NKEY_SEED,
    credsFile: c.FLEX_NATS_CREDS,
    tls: tls && Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined)),
  };
  return Object.fromEntries(Object.entries(auth).filter(([, v]) => v !== undefined));
}
