import type { FlexConfig } from '@flex/runtime';
import { z } from 'zod';
import type { PatchOperation } from './json-patch';

/** One message of the OpenAI chat-completions protocol. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The OpenAI-compatible model the builder talks to (FLEX_LLM_*), when one is configured. */
export interface BuilderModel {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
}

export type ModelReply =
  { ok: true; message: string; patch: PatchOperation[] } | { ok: false; reason: string };

const DEFAULT_MODEL = 'gpt-4o-mini';
const TIMEOUT_MS = 30_000;

export function builderModelFrom(config: FlexConfig): BuilderModel | undefined {
  if (!config.FLEX_LLM_BASE_URL) return undefined;
  return {
    baseUrl: config.FLEX_LLM_BASE_URL.replace(/\/+$/, ''),
    apiKey: config.FLEX_LLM_API_KEY,
    model: config.FLEX_LLM_MODEL ?? DEFAULT_MODEL,
    timeoutMs: TIMEOUT_MS,
  };
}

/** What the model must answer: a reply to the developer and the JSON Patch for the draft. */
const ReplySchema = z.strictObject({
  message: z.string().min(1).max(4_000),
  patch: z
    .array(
      z.strictObject({
        op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
        path: z.string().max(1_000),
        value: z.unknown().optional(),
        from: z.string().max(1_000).optional(),
      }),
    )
    .max(100),
});

const RESPONSE_FORMAT = {
  type: 'json_schema',
  json_schema: {
    name: 'flex_envelope_patch',
    schema: {
      type: 'object',
      required: ['message', 'patch'],
      additionalProperties: false,
      properties: {
        message: {
          type: 'string',
          description: 'A short reply to the developer; a question when something is missing.',
        },
        patch: {
          type: 'array',
          description: 'RFC 6902 JSON Patch operations on the current draft.',
          items: {
            type: 'object',
            required: ['op', 'path'],
            properties: {
              op: { enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] },
              path: { type: 'string' },
              from: { type: 'string' },
              value: {},
            },
          },
        },
      },
    },
  },
};

/**
 * One turn of the model: POST /chat/completions with a JSON-schema response format. Never throws:
 * an unreachable model, an error status, a timeout or an answer that is not the reply schema come
 * back as `{ ok: false, reason }`, and the builder falls back to its guidance.
 */
export async function askModel(model: BuilderModel, messages: ChatMessage[]): Promise<ModelReply> {
  let response: Response;
  try {
    response = await fetch(`${model.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(model.apiKey ? { authorization: `Bearer ${model.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: model.model,
        temperature: 0,
        messages,
        response_format: RESPONSE_FORMAT,
      }),
      signal: AbortSignal.timeout(model.timeoutMs),
    });
  } catch (error) {
    const timedOut = ['TimeoutError', 'AbortError'].includes((error as Error).name);
    return {
      ok: false,
      reason: timedOut ? `no answer within ${model.timeoutMs} ms` : 'the model is unreachable',
    };
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) return { ok: false, reason: `the model answered HTTP ${response.status}` };
  return parseReply(text);
}

function parseReply(text: string): ModelReply {
  let content: unknown;
  try {
    const body = JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> };
    content = body.choices?.[0]?.message?.content;
    if (typeof content !== 'string')
      return { ok: false, reason: 'the model’s answer has no message content' };
    const parsed = ReplySchema.safeParse(JSON.parse(content));
    if (!parsed.success)
      return { ok: false, reason: `the model’s answer is not a reply: ${parsed.error.issues[0]?.message}` };
    return { ok: true, message: parsed.data.message, patch: parsed.data.patch };
  } catch {
    return { ok: false, reason: 'the model’s answer is not JSON' };
  }
}
