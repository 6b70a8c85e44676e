import { z } from 'zod';

const intFromEnv = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * What one HTTP server and one API token may hold (docs/security/http-limits-and-fuzz.md). The
 * timeouts are the server's: headers, the whole request (headers and body), and an idle keep-alive
 * connection; the rest are per token, except FLEX_LIMIT_CONNECTIONS (all sockets of the server).
 */
const HTTP_LIMITS = {
  FLEX_LIMIT_HEADERS_TIMEOUT_MS: intFromEnv(10_000),
  FLEX_LIMIT_REQUEST_TIMEOUT_MS: intFromEnv(30_000),
  FLEX_LIMIT_IDLE_TIMEOUT_MS: intFromEnv(5_000),
  FLEX_LIMIT_CONNECTIONS: intFromEnv(1_024),
  /** Requests of one token in flight at once (an open SSE stream is one). */
  FLEX_LIMIT_CONNECTIONS_PER_TOKEN: intFromEnv(64),
  FLEX_LIMIT_STREAMS_PER_TOKEN: intFromEnv(16),
  /** Runs of one token planning or running at once (resting paused or on a human, a run does not count). */
  FLEX_LIMIT_RUNS_PER_TOKEN: intFromEnv(8),
  /** The token bucket of each token: refilled at this rate, holding at most the burst. */
  FLEX_LIMIT_REQUESTS_PER_SECOND: intFromEnv(50),
  FLEX_LIMIT_REQUEST_BURST: intFromEnv(100),
  /** An SSE reader whose unsent bytes stay above this for FLEX_LIMIT_SSE_STALL_MS is dropped. */
  FLEX_LIMIT_SSE_BUFFER_BYTES: intFromEnv(1024 * 1024),
  FLEX_LIMIT_SSE_STALL_MS: intFromEnv(10_000),
};

const ConfigSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    FLEX_DATA_DIR: z.string().min(1).default('.flex'),
    FLEX_DATABASE_URL: z.string().url().optional(),
    FLEX_NATS_URL: z.string().min(1).optional(),
    FLEX_NATS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .default('flex'),
    FLEX_API_TOKENS: z.string().optional(),
    FLEX_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
    FLEX_MAX_PLAN_ATTEMPTS: intFromEnv(3),
    FLEX_MAX_REPLANS: intFromEnv(3),
    FLEX_MAX_HITL_REQUESTS: intFromEnv(5),
    FLEX_AGENT_TIMEOUT_MS: intFromEnv(60_000),
    FLEX_NODE_MAX_ATTEMPTS: intFromEnv(3),
    /** Deliveries of one message before a service gives up on it (dead letter; its run fails). */
    FLEX_BUS_MAX_DELIVER: intFromEnv(10),
    FLEX_PLANNER: z.enum(['rule-based', 'llm']).default('rule-based'),
    FLEX_LLM_BASE_URL: z.string().url().optional(),
    FLEX_LLM_API_KEY: z.string().optional(),
    FLEX_LLM_MODEL: z.string().optional(),
    /** When set, `GET /metrics` answers only `Authorization: Bearer <this>` (unset: open, as a scrape target). */
    FLEX_METRICS_TOKEN: z.string().min(16, 'FLEX_METRICS_TOKEN must be at least 16 characters').optional(),
    ...HTTP_LIMITS,
  })
  .refine((c) => c.FLEX_LIMIT_HEADERS_TIMEOUT_MS <= c.FLEX_LIMIT_REQUEST_TIMEOUT_MS, {
    // Node refuses a server whose headers may take longer than the whole request.
    message: 'FLEX_LIMIT_HEADERS_TIMEOUT_MS must not exceed FLEX_LIMIT_REQUEST_TIMEOUT_MS',
    path: ['FLEX_LIMIT_HEADERS_TIMEOUT_MS'],
  });

export type FlexConfig = Readonly<z.infer<typeof ConfigSchema>>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'INVALID_CONFIG';
  constructor(readonly issues: string[]) {
    super(`invalid configuration: ${issues.join('; ')}`);
  }
}

/** The only reader of process.env: parse once, with defaults, failing fast. Empty strings count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): FlexConfig {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ConfigSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  return Object.freeze(parsed.data);
}
