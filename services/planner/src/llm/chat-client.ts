import { inChatSpan, type ChatSpanResult } from '@flex/tracing';

/** One chat message of the OpenAI chat-completions protocol. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  baseUrl: string;
  apiKey?: string;
  model: string;
  messages: ChatMessage[];
  responseFormat: Record<string, unknown>;
  timeoutMs: number;
  /** 429 handling: retries after the first answer, and the longest wait honoured from Retry-After. */
  maxRateLimitRetries: number;
  maxBackoffMs: number;
}

export type ChatResult =
  | { ok: true; content: string; model: string; usage: { input: number; output: number } }
  | {
      ok: false;
      kind: 'rate_limited' | 'timeout' | 'unavailable' | 'malformed';
      message: string;
      retryAfterMs?: number;
      usage: { input: number; output: number };
    };

const NO_USAGE = { input: 0, output: 0 };

function chatSpanResult(result: ChatResult): ChatSpanResult {
  const tokens = { inputTokens: result.usage.input, outputTokens: result.usage.output };
  return result.ok ? { ...tokens, responseModel: result.model } : { ...tokens, error: result.kind };
}

/**
 * POST /chat/completions with a JSON-schema response format (global fetch). Each call has its own
 * deadline (AbortSignal); a 429 waits as Retry-After says (bounded, else exponential) and retries a
 * bounded number of times. Never throws: every failure is a value the planner can fall back on.
 */
export async function chatCompletion(request: ChatRequest): Promise<ChatResult> {
  for (let retry = 0; ; retry++) {
    const result = await inChatSpan(request.model, () => once(request), chatSpanResult);
    if (result.ok || result.kind !== 'rate_limited' || retry >= request.maxRateLimitRetries) return result;
    const wait = Math.min(result.retryAfterMs ?? 250 * 2 ** retry, request.maxBackoffMs);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

async function once(request: ChatRequest): Promise<ChatResult> {
  let response: Response;
  try {
    response = await fetch(`${request.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(request.apiKey ? { authorization: `Bearer ${request.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: request.model,
        temperature: 0,
        messages: request.messages,
        response_format: request.responseFormat,
      }),
      signal: AbortSignal.timeout(request.timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError')
      return {
        ok: false,
        kind: 'timeout',
        message: `no answer within ${request.timeoutMs} ms`,
        usage: NO_USAGE,
      };
    return {
      ok: false,
      kind: 'unavailable',
      message: `LLM unreachable: ${(error as Error).message}`,
      usage: NO_USAGE,
    };
  }
  return readResponse(response, request.timeoutMs);
}

async function readResponse(response: Response, timeoutMs: number): Promise<ChatResult> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
    return {
      ok: false,
      kind: timedOut ? 'timeout' : 'unavailable',
      message: timedOut ? `no answer within ${timeoutMs} ms` : (error as Error).message,
      usage: NO_USAGE,
    };
  }
  if (response.status === 429) {
    return {
      ok: false,
      kind: 'rate_limited',
      message: 'LLM API rate limited (429)',
      retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
      usage: NO_USAGE,
    };
  }
  if (!response.ok)
    return {
      ok: false,
      kind: 'unavailable',
      message: `LLM API answered ${response.status}: ${text.slice(0, 300)}`,
      usage: NO_USAGE,
    };
  let body: {
    model?: unknown;
    choices?: Array<{ message?: { content?: unknown } }>;
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  };
  try {
    body = JSON.parse(text);
  } catch {
    return {
      ok: false,
      kind: 'malformed',
      message: 'the LLM API answered with something that is not JSON',
      usage: NO_USAGE,
    };
  }
  const usage = { input: count(body.usage?.prompt_tokens), output: count(body.usage?.completion_tokens) };
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== 'string')
    return { ok: false, kind: 'malformed', message: 'the completion has no message content', usage };
  return { ok: true, content, model: typeof body.model === 'string' ? body.model : 'unknown', usage };
}

/** Retry-After as delta-seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const count = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);
