import { z } from 'zod';
import { LIMITS } from '@flex/contracts';

const intFromEnv = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const ConfigSchema = z.object({
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
  /** The evaluation budget of an untrusted JSONLogic rule: operations, then allocated items. */
  FLEX_LOGIC_MAX_OPERATIONS: intFromEnv(LIMITS.jsonLogicMaxOperations),
  FLEX_LOGIC_MAX_ITEMS: intFromEnv(LIMITS.jsonLogicMaxItems),
  FLEX_PLANNER: z.enum(['rule-based', 'llm']).default('rule-based'),
  FLEX_LLM_BASE_URL: z.string().url().optional(),
  FLEX_LLM_API_KEY: z.string().optional(),
  FLEX_LLM_MODEL: z.string().optional(),
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
