import { jsonProblem } from '../shared/json';
import { LIMITS } from '../shared/limits';
import { findUnstorableText } from '../shared/storable-text';
import { isPlainObject } from '../shared/plain-object';
import type { NormalizeContext } from './normalize-context';

/**
 * Checks what must hold before any pass looks inside the envelope — a JSON object, nested at
 * most {@link LIMITS.jsonMaxDepth} deep, without cycles, with only text Postgres can store, at most
 * {@link LIMITS.envelopeMaxBytes} of JSON — and
 * returns a private deep copy for the passes to rewrite, or `undefined` after rejecting.
 */
export function guardRawEnvelope(raw: unknown, ctx: NormalizeContext): Record<string, unknown> | undefined {
  if (!isPlainObject(raw)) {
    ctx.reject([], 'invalid_type', 'the envelope must be a JSON object');
    return undefined;
  }
  // One bounded walk: stops at the depth cap, so hostile nesting cannot overflow the stack.
  const problem = jsonProblem(raw, LIMITS.jsonMaxDepth);
  if (problem) {
    ctx.reject(problem.path, problem.code, problem.message, undefined, []);
    return undefined;
  }
  // Postgres refuses a NUL or a lone surrogate in jsonb: refuse them here, naming the path, not at the append.
  const unstorable = findUnstorableText(raw);
  if (unstorable) {
    ctx.reject(unstorable.path, 'unstorable_text', unstorable.message);
    return undefined;
  }
  const text = JSON.stringify(raw);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > LIMITS.envelopeMaxBytes) {
    ctx.reject(
      [],
      'envelope_too_large',
      `the envelope is ${bytes} bytes of JSON; the limit is ${LIMITS.envelopeMaxBytes}`,
    );
    return undefined;
  }
  return JSON.parse(text) as Record<string, unknown>;
}
