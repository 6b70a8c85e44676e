import { z } from 'zod';

/** How the reference agents reach an OpenAI-compatible chat-completions API. */
export interface LlmConfig {
  /** Base URL ending before `/chat/completions`, e.g. `https://api.openai.com/v1`. */
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly model: string;
  /** Per HTTP call (AbortSignal): a call slower than this counts as a failed attempt and is not retried. */
  readonly timeoutMs: number;
  /** Calls per invocation, retries included (429, 5xx, invalid JSON, an answer breaking the contract). */
  readonly maxAttempts: number;
  /** Longest Retry-After honoured; a server asking for more is not retried. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_LLM_MODEL = 'gpt-4o-mini';

const LlmEnvSchema = z.object({
  FLEX_LLM_BASE_URL: z.string().url().optional(),
  FLEX_LLM_API_KEY: z.string().optional(),
  FLEX_LLM_MODEL: z.string().min(1).default(DEFAULT_LLM_MODEL),
  FLEX_LLM_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  FLEX_LLM_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  FLEX_LLM_MAX_RETRY_AFTER_MS: z.coerce.number().int().min(0).default(10_000),
});

export class LlmConfigError extends Error {
  override readonly name = 'LlmConfigError';
  readonly code = 'INVALID_CONFIG';
  readonly retryable = false;
}

/**
 * The LLM settings from environment-shaped values (`process.env` in `main.ts`, or the runtime's
 * `FlexConfig` in embedded mode): undefined when `FLEX_LLM_BASE_URL` is unset, so the agents stay
 * deterministic. Empty strings count as unset; a bad value fails fast.
 */
export function llmConfigFrom(env: Readonly<Record<string, unknown>>): LlmConfig | undefined {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([k, v]) => k.startsWith('FLEX_LLM_') && v !== undefined && v !== ''),
  );
  const parsed = LlmEnvSchema.safeParse(cleaned);
  if (!parsed.success)
    throw new LlmConfigError(
      `invalid LLM configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  const c = parsed.data;
  if (!c.FLEX_LLM_BASE_URL) return undefined;
  return Object.freeze({
    baseUrl: c.FLEX_LLM_BASE_URL.replace(/\/+$/, ''),
    apiKey: c.FLEX_LLM_API_KEY,
    model: c.FLEX_LLM_MODEL,
    timeoutMs: c.FLEX_LLM_TIMEOUT_MS,
    maxAttempts: c.FLEX_LLM_MAX_ATTEMPTS,
    maxRetryAfterMs: c.FLEX_LLM_MAX_RETRY_AFTER_MS,
  });
}
