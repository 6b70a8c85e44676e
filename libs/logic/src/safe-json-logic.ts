import jsonLogic from 'json-logic-js';
import { validateJsonLogic } from '@flex/contracts';

const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

/**
 * json-logic-js with the two known holes closed: `method` (calls arbitrary methods) is removed, and
 * `var` reads own properties of objects and arrays only, so `constructor`, `__proto__` or anything
 * of a prototype is never reached. The one exception is a string's `length` (UTF-16 units, as
 * json-logic-js reads it), which length constraints on texts need. Installed once on the module's
 * shared instance.
 */
function install(): typeof jsonLogic {
  jsonLogic.rm_operation('method');
  // json-logic-js calls an operation with the data as `this`.
  jsonLogic.add_operation('var', function safeVar(this: unknown, path?: unknown, fallback?: unknown) {
    return readVar(this, path, fallback);
  } as never);
  return jsonLogic;
}

function readVar(data: unknown, path: unknown, fallback: unknown): unknown {
  const key = Array.isArray(path) ? path[0] : path;
  const otherwise =
    Array.isArray(path) && path.length > 1 ? path[1] : fallback === undefined ? null : fallback;
  if (key === undefined || key === null || key === '') return data;
  let current = data;
  for (const segment of String(key).split('.')) {
    if (typeof current === 'string' && segment === 'length') {
      current = current.length;
      continue;
    }
    if (FORBIDDEN_SEGMENTS.has(segment) || current === null || typeof current !== 'object') return otherwise;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return otherwise;
    current = (current as Record<string, unknown>)[segment];
  }
  return current === undefined ? otherwise : current;
}

const logic = install();

export type RuleResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Evaluate an untrusted JSONLogic rule over `data`. The rule is checked against the operator
 * allowlist and size caps first; any failure is a result, never a throw, so callers can fail closed.
 */
export function evaluateRule(rule: unknown, data: unknown): RuleResult {
  const issues = validateJsonLogic(rule, 'rule');
  if (issues.length > 0) return { ok: false, error: `${issues[0].path}: ${issues[0].message}` };
  try {
    return { ok: true, value: logic.apply(rule as never, data as never) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** JSONLogic truthiness (an empty array is false). */
export function truthy(value: unknown): boolean {
  return logic.truthy(value);
}
