import { isUtf8 } from 'node:buffer';
import { findUnstorableText, formatIssuePath, jsonProblem, LIMITS } from '@flex/contracts';

/** Largest request body read, in bytes: an envelope at its limit, with room for whitespace. */
export const BODY_MAX_BYTES = LIMITS.envelopeMaxBytes + 64 * 1024;

/** Why a body is refused (the API error's `code`, with a 400 unless said otherwise). */
export type BodyProblemCode = 'invalid_utf8' | 'too_deep' | 'invalid_json' | 'not_json' | 'unstorable_text';

export interface BodyProblem {
  code: BodyProblemCode;
  message: string;
  /**
   * Where: the byte offset before the text parsed; after, the JSON path, with the one issue in
   * the `issues` shape of every other 400.
   */
  details: {
    offset?: number;
    path?: string;
    issues?: Array<{ path: string; code: string; message: string }>;
  };
}

export type ParsedBody = { ok: true; value: unknown } | { ok: false; problem: BodyProblem };

const OPEN_CURLY = 0x7b;
const OPEN_SQUARE = 0x5b;
const CLOSE_CURLY = 0x7d;
const CLOSE_SQUARE = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * A request body as the API takes it: UTF-8 JSON (whatever the Content-Type says), nested at most
 * `LIMITS.jsonMaxDepth` deep, JSON-safe (no `__proto__` key) and storable (no U+0000, no unpaired
 * surrogate: Postgres refuses both in jsonb). The nesting is measured on the bytes before parsing,
 * so 50,000 brackets cost one pass over them instead of a parse and a recursive walk. Empty is
 * `undefined`. Total: every byte string gives a value or a problem, never an exception.
 */
export function parseJsonBody(bytes: Uint8Array): ParsedBody {
  if (bytes.length === 0) return { ok: true, value: undefined };
  if (!isUtf8(bytes))
    return problem('invalid_utf8', 'the body is not valid UTF-8 (JSON bodies are UTF-8)', {});
  const offset = depthExceededAt(bytes, LIMITS.jsonMaxDepth);
  if (offset !== undefined)
    return problem('too_deep', `the body nests deeper than ${LIMITS.jsonMaxDepth} levels`, { offset });
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'));
  } catch (error) {
    return problem('invalid_json', `the body is not valid JSON: ${(error as Error).message}`, {});
  }
  const notJson = jsonProblem(value);
  if (notJson) return atPath('not_json', notJson.path, notJson.message);
  const unstorable = findUnstorableText(value);
  if (unstorable) return atPath('unstorable_text', unstorable.path, unstorable.message);
  return { ok: true, value };
}

/**
 * The byte offset of the first `[` or `{` (outside a string) that opens level `maxDepth + 1`, if
 * any. Malformed text is left to JSON.parse: this only has to be right about well-formed JSON.
 */
export function depthExceededAt(bytes: Uint8Array, maxDepth: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i += 1) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_CURLY || byte === OPEN_SQUARE) {
      depth += 1;
      if (depth > maxDepth) return i;
    } else if (byte === CLOSE_CURLY || byte === CLOSE_SQUARE) depth -= 1;
  }
  return undefined;
}

/** `path: message`, as every 400 that names a place in the body reads. */
function atPath(code: BodyProblemCode, segments: PropertyKey[], message: string): ParsedBody {
  const path = formatIssuePath(segments);
  return problem(code, path ? `${path}: ${message}` : message, {
    path,
    issues: [{ path, code, message }],
  });
}

function problem(code: BodyProblemCode, message: string, details: BodyProblem['details']): ParsedBody {
  return { ok: false, problem: { code, message, details } };
}
