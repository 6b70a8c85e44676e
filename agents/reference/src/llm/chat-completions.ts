import { truncateCodePoints } from '@flex/agent-sdk';
import { inChatSpan, type ChatSpanResult } from '@flex/tracing';
import type { LlmConfig } from './llm.config';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface StructuredRequest {
  /** `json_schema.name`: [A-Za-z0-9_-], at most 64 characters. */
  name: string;
  schema: Readonly<Record<string, unknown>>;
  messages: readonly ChatMessage[];
  /** Every way the parsed answer breaks the contract; empty when it conforms. */
  validate: (value: unknown) => readonly string[];
  /** The invocation's own signal (its deadline): aborting it ends the whole exchange. */
  signal?: AbortSignal;
  /** Called before each retry, for logs. */
  onRetry?: (attempt: number, reason: string, delayMs: number) => void;
}

export interface LlmUsage {
  tokens: number;
  model: string;
  attempts: number;
}

/** Why the LLM gave no valid answer; `usage` counts what was spent trying. */
export class LlmUnavailableError extends Error {
  override readonly name = 'LlmUnavailableError';
  readonly code = 'llm_unavailable';
  readonly retryable = true;
  constructor(
    readonly reason: string,
    readonly usage: LlmUsage,
  ) {
    super(`the LLM gave no valid answer: ${reason}`);
  }
}

type Attempt = (
  | { kind: 'answer'; value: unknown; tokens: number; model: string }
  | { kind: 'retry'; reason: string; tokens: number; delayMs: number; feedback?: ChatMessage[] }
  | { kind: 'stop'; reason: string; tokens: number }
) & { usage?: { input: number; output: number } };

/** An attempt as its GenAI span records it: models and token counts only. */
function chatSpanResult(attempt: Attempt): ChatSpanResult {
  const tokens = attempt.usage
    ? { inputTokens: attempt.usage.input, outputTokens: attempt.usage.output }
    : {};
  return attempt.kind === 'answer'
    ? { ...tokens, responseModel: attempt.model }
    : { ...tokens, error: attempt.kind === 'retry' ? 'retry' : 'stop' };
}

/**
 * One structured answer from an OpenAI-compatible chat-completions API, with
 * `response_format: { type: 'json_schema', json_schema: { name, strict: true, schema } }`. Retries,
 * at most `maxAttempts` calls in all: 429 and 5xx (after Retry-After when it is at most
 * `maxRetryAfterMs`, else not at all; exponential backoff without it), and an answer that is not
 * JSON or breaks the schema (the model is told what was wrong). A call slower than `timeoutMs`,
 * an aborted invocation, or any other status ends it. Throws {@link LlmUnavailableError}.
 */
export async function completeStructured(
  config: LlmConfig,
  request: StructuredRequest,
): Promise<{ value: unknown; usage: LlmUsage }> {
  const messages = [...request.messages];
  let tokens = 0;
  let last = 'no attempt made';
  let made = 0;
  for (let attempt = 1; attempt <= config.maxAttempts; attempt++) {
    made = attempt;
    const outcome = await inChatSpan(
      config.model,
      () => callOnce(config, request, messages, attempt),
      chatSpanResult,
    );
    tokens += outcome.tokens;
    if (outcome.kind === 'answer')
      return { value: outcome.value, usage: { tokens, model: outcome.model, attempts: attempt } };
    last = outcome.reason;
    if (outcome.kind === 'stop' || attempt === config.maxAttempts) break;
    if (outcome.feedback) messages.push(...outcome.feedback);
    request.onRetry?.(attempt, outcome.reason, outcome.delayMs);
    if (!(await sleep(outcome.delayMs, request.signal))) {
      last = 'the invocation was aborted';
      break;
    }
  }
  throw new LlmUnavailableError(last, { tokens, model: config.model, attempts: made });
}

async function callOnce(
  config: LlmConfig,
  request: StructuredRequest,
  messages: readonly ChatMessage[],
  attempt: number,
): Promise<Attempt> {
  const timeout = AbortSignal.timeout(config.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  let response: Response;
  let body: unknown;
  try {
    response = await fetch(`${config.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: config.model,
        messages,
        response_format: {
          type: 'json_schema',
          json_schema: { name: request.name, strict: true, schema: request.schema },
        },
      }),
      signal,
    });
    body = await response.json().catch(() => undefined);
  } catch (error) {
    if (timeout.aborted)
      return { kind: 'stop', reason: `no answer within ${config.timeoutMs} ms`, tokens: 0 };
    if (request.signal?.aborted) return { kind: 'stop', reason: 'the invocation was aborted', tokens: 0 };
    return {
      kind: 'retry',
      reason: `request failed: ${(error as Error).message}`,
      tokens: 0,
      delayMs: backoff(attempt),
    };
  }
  if (response.status === 429 || response.status >= 500) return throttled(config, response, attempt);
  if (!response.ok)
    return { kind: 'stop', reason: `HTTP ${response.status}: ${errorMessage(body)}`, tokens: 0 };
  return readAnswer(config, request, body, attempt);
}

function throttled(config: LlmConfig, response: Response, attempt: number): Attempt {
  const retryAfter = retryAfterMs(response.headers.get('retry-after'));
  const reason = `HTTP ${response.status}`;
  if (retryAfter !== undefined && retryAfter > config.maxRetryAfterMs) {
    return {
      kind: 'stop',
      reason: `${reason}, Retry-After ${retryAfter} ms exceeds the ${config.maxRetryAfterMs} ms allowed`,
      tokens: 0,
    };
  }
  return { kind: 'retry', reason, tokens: 0, delayMs: retryAfter ?? backoff(attempt) };
}

/** The answer judged, with the tokens it spent in and out (for its GenAI span). */
function readAnswer(config: LlmConfig, request: StructuredRequest, body: unknown, attempt: number): Attempt {
  const spent = (body as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } } | undefined)
    ?.usage;
  const usage = { input: tokenCount(spent?.prompt_tokens), output: tokenCount(spent?.completion_tokens) };
  return { ...judgeAnswer(config, request, body, attempt), usage };
}

const tokenCount = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);

function judgeAnswer(config: LlmConfig, request: StructuredRequest, body: unknown, attempt: number): Attempt {
  const b = body as
    | {
        choices?: Array<{ message?: { content?: unknown; refusal?: unknown } }>;
        usage?: { total_tokens?: unknown };
        model?: unknown;
      }
    | undefined;
  const tokens = typeof b?.usage?.total_tokens === 'number' ? b.usage.total_tokens : 0;
  const model = typeof b?.model === 'string' ? b.model : config.model;
  const message = b?.choices?.[0]?.message;
  const content = message?.content;
  if (typeof content !== 'string') {
    const refusal = typeof message?.refusal === 'string' ? `: ${message.refusal}` : '';
    return { kind: 'retry', reason: `the answer has no content${refusal}`, tokens, delayMs: 0 };
  }
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (error) {
    return {
      kind: 'retry',
      reason: `the answer is not JSON (${(error as Error).message})`,
      tokens,
      delayMs: backoff(attempt, 0),
      feedback: correction(content, 'it was not valid JSON'),
    };
  }
  const problems = request.validate(value);
  if (problems.length > 0) {
    const listed = problems.slice(0, 5).join('; ');
    return {
      kind: 'retry',
      reason: `the answer breaks the contract: ${listed}`,
      tokens,
      delayMs: backoff(attempt, 0),
      feedback: correction(content, `it broke the schema: ${listed}`),
    };
  }
  return { kind: 'answer', value, tokens, model };
}

function correction(previous: string, problem: string): ChatMessage[] {
  return [
    { role: 'assistant', content: truncateCodePoints(previous, 4_000) },
    {
      role: 'user',
      content: `That answer cannot be used because ${problem}. Answer again with one JSON object that matches the schema exactly, and nothing else.`,
    },
  ];
}

/** Retry-After as seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function backoff(attempt: number, baseMs = 250): number {
  return Math.min(4_000, baseMs * 2 ** (attempt - 1));
}

function errorMessage(body: unknown): string {
  const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? truncateCodePoints(message, 300) : 'request refused';
}

/** False when the signal aborted first. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
