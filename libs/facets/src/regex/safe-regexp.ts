import { RE2JS } from 're2js';
import type { CodeOptions } from 'ajv';
import { readPattern, type PatternIssueCode } from './ecma-pattern';

type RegExpEngine = NonNullable<CodeOptions['regExp']>;

/** RE2 "program size" above which a pattern is refused: bounds per-character matching cost. */
export const MAX_PATTERN_PROGRAM_SIZE = 4000;

export type SafePatternIssueCode = PatternIssueCode | 'UNSUPPORTED_PATTERN' | 'PATTERN_TOO_COMPLEX';

export type SafePattern =
  | { readonly ok: true; readonly regExp: RE2JS }
  | { readonly ok: false; readonly code: SafePatternIssueCode; readonly message: string };

const CACHE_LIMIT = 2048;
const cache = new Map<string, SafePattern>();

/**
 * A JSON Schema `pattern` compiled for RE2JS, a pure-JavaScript port of RE2: matching time is
 * linear in the input, whatever the pattern. Results (refusals too) are cached by source.
 */
export function compileSafePattern(source: string): SafePattern {
  const hit = cache.get(source);
  if (hit) {
    cache.delete(source); // least recently used goes first
    cache.set(source, hit);
    return hit;
  }
  const result = compile(source);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(source, result);
  return result;
}

function compile(source: string): SafePattern {
  const read = readPattern(source);
  if (!read.ok) return read;
  let regExp: RE2JS;
  try {
    regExp = RE2JS.compile(read.re2);
  } catch (error) {
    return {
      ok: false,
      code: 'UNSUPPORTED_PATTERN',
      message: `not supported by the linear-time engine: ${(error as Error).message}`,
    };
  }
  if (regExp.programSize() > MAX_PATTERN_PROGRAM_SIZE) {
    const message = `pattern compiles to ${regExp.programSize()} instructions; the limit is ${MAX_PATTERN_PROGRAM_SIZE}`;
    return { ok: false, code: 'PATTERN_TOO_COMPLEX', message };
  }
  return { ok: true, regExp };
}

/**
 * Ajv's `code.regExp` hook: every `pattern` and `patternProperties` key goes through here, so an
 * Ajv built with it refuses unsafe patterns at compile time even when no pre-check ran.
 */
export const safeRegExpEngine: RegExpEngine = Object.assign(
  (pattern: string): RE2JS => {
    const result = compileSafePattern(pattern);
    if (!result.ok) throw new Error(`pattern "${pattern}" refused (${result.code}): ${result.message}`);
    return result.regExp;
  },
  // Only read by Ajv's standalone code generation, which Flex does not use.
  { code: 'require("re2js").RE2JS.compile' },
);
