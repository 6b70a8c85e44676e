import { SpanKind } from '@opentelemetry/api';
import { ATTR } from './attributes';
import { inSpan, markFailed } from './spans';

/** What a chat-completions call came to, as the GenAI conventions record it. */
export interface ChatSpanResult {
  responseModel?: string;
  inputTokens?: number;
  outputTokens?: number;
  /** Why it gave no usable answer (a code such as `timeout`, `rate_limited`). */
  error?: string;
}

/**
 * One call to an OpenAI-compatible chat-completions API as a GenAI client span, `chat <model>`
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/): model and token counts,
 * never the prompt or the answer.
 */
export function inChatSpan<T>(
  model: string,
  call: () => Promise<T>,
  describe: (result: T) => ChatSpanResult,
): Promise<T> {
  const attributes = {
    [ATTR.genAiOperation]: 'chat',
    [ATTR.genAiProvider]: 'openai',
    [ATTR.genAiRequestModel]: model,
  };
  return inSpan(`chat ${model}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const result = await call();
    const { responseModel, inputTokens, outputTokens, error } = describe(result);
    if (responseModel !== undefined) span.setAttribute(ATTR.genAiResponseModel, responseModel);
    if (inputTokens !== undefined) span.setAttribute(ATTR.genAiInputTokens, inputTokens);
    if (outputTokens !== undefined) span.setAttribute(ATTR.genAiOutputTokens, outputTokens);
    if (error !== undefined) markFailed(span, error);
    return result;
  });
}
