import { z } from 'zod';
import { LIMITS } from './limits';
import { isPlainObject } from './plain-object';

/** Any value that survives `JSON.stringify` → `JSON.parse` unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Where and why a value is not JSON-safe; `too_deep` when it only nests too deep. */
export interface JsonProblem {
  path: PropertyKey[];
  code: 'not_json' | 'too_deep';
  message: string;
}

/**
 * Why a value would not survive a JSON round trip unchanged, or `undefined` when it would.
 * Rejects non-finite numbers, bigint, functions, symbols, `undefined` array items, non-plain
 * objects (Date, Map, class instances), cycles, `__proto__` keys and nesting deeper than `maxDepth`.
 * Object properties whose value is `undefined` are allowed: JSON drops them, as zod does.
 */
export function jsonProblem(value: unknown, maxDepth: number = LIMITS.jsonMaxDepth): JsonProblem | undefined {
  return walk(value, [], maxDepth, new Set(), maxDepth);
}

function walk(
  value: unknown,
  path: PropertyKey[],
  depthLeft: number,
  seen: Set<object>,
  cap: number,
): JsonProblem | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number')
    return Number.isFinite(value)
      ? undefined
      : { path, code: 'not_json', message: `${value} is not a JSON number` };
  if (typeof value !== 'object')
    return { path, code: 'not_json', message: `a ${typeof value} is not a JSON value` };
  if (depthLeft <= 0) return { path, code: 'too_deep', message: `nesting deeper than ${cap} levels` };
  if (seen.has(value)) return { path, code: 'not_json', message: 'circular reference' };
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
    return {
      path,
      code: 'not_json',
      message: `a ${value.constructor?.name ?? 'non-plain'} object is not a JSON value (use ISO strings, arrays and plain objects)`,
    };
  }
  seen.add(value);
  try {
    return Array.isArray(value)
      ? walkArray(value, path, depthLeft, seen, cap)
      : walkObject(value as Record<string, unknown>, path, depthLeft, seen, cap);
  } finally {
    seen.delete(value);
  }
}

function walkArray(
  items: unknown[],
  path: PropertyKey[],
  depthLeft: number,
  seen: Set<object>,
  cap: number,
): JsonProblem | undefined {
  for (let i = 0; i < items.length; i += 1) {
    if (items[i] === undefined)
      return { path: [...path, i], code: 'not_json', message: 'undefined is not a JSON value' };
    const problem = walk(items[i], [...path, i], depthLeft - 1, seen, cap);
    if (problem) return problem;
  }
  return undefined;
}

function walkObject(
  record: Record<string, unknown>,
  path: PropertyKey[],
  depthLeft: number,
  seen: Set<object>,
  cap: number,
): JsonProblem | undefined {
  for (const key of Object.keys(record)) {
    if (key === '__proto__')
      return { path: [...path, key], code: 'not_json', message: 'the key "__proto__" is not allowed' };
    if (record[key] === undefined) continue;
    const problem = walk(record[key], [...path, key], depthLeft - 1, seen, cap);
    if (problem) return problem;
  }
  return undefined;
}

/** Adds a zod issue when `value` is not JSON-safe (see {@link jsonProblem}). */
export function checkJson(value: unknown, ctx: z.RefinementCtx): void {
  const problem = jsonProblem(value);
  if (problem)
    ctx.addIssue({
      code: 'custom',
      path: problem.path,
      message: problem.message,
      params: { code: problem.code },
    });
}

/**
 * A free-form JSON object: the bags the spec leaves open (`inputs`, `metadata`, `directives`,
 * `hints`, JSON Schemas, JSONLogic, emit payloads). Keys are not restricted; values must be JSON.
 * Checked in place rather than copied, so a `__proto__` key is refused instead of silently dropped.
 */
export const JsonObjectSchema = z.custom<Record<string, unknown>>().superRefine((value, ctx) => {
  if (value === undefined)
    ctx.addIssue({
      code: 'custom',
      message: 'required field is missing (expected a JSON object)',
      params: { code: 'required' },
    });
  else if (!isPlainObject(value))
    ctx.addIssue({ code: 'custom', message: 'expected a JSON object', params: { code: 'invalid_type' } });
  else checkJson(value, ctx);
});

/** Any JSON value (see {@link JsonObjectSchema} for what "JSON" means here). */
export const JsonValueSchema = z.unknown().superRefine((value, ctx) => {
  if (value === undefined)
    ctx.addIssue({ code: 'custom', message: 'a JSON value is required', params: { code: 'required' } });
  else checkJson(value, ctx);
});

/**
 * True when `value` nests deeper than `maxDepth` levels (a scalar is 0 deep, `{}` is 1). Stops
 * descending at the cap, so it is safe on hostile input that would overflow a naive walk.
 */
export function nestingExceeds(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (maxDepth <= 0) return true;
  for (const child of Object.values(value as Record<string, unknown>)) {
    if (nestingExceeds(child, maxDepth - 1)) return true;
  }
  return false;
}
