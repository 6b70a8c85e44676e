import { formatIssuePath } from '../shared/issue-path';
import { LIMITS } from '../shared/limits';
import { isPlainObject } from '../shared/plain-object';
import type { ValidationIssue } from '../normalizer/validation-issue';
import { jsonLogicCostProblems } from './jsonlogic-cost';

/**
 * The JSONLogic operators a condition or constraint may use: json-logic-js's pure operators.
 * `method` (calls arbitrary JavaScript methods) and `log` (side effect) are deliberately absent.
 */
export const JSONLOGIC_OPERATORS = [
  'var',
  'missing',
  'missing_some',
  'if',
  '?:',
  '==',
  '===',
  '!=',
  '!==',
  '!',
  '!!',
  'or',
  'and',
  '>',
  '>=',
  '<',
  '<=',
  'max',
  'min',
  '+',
  '-',
  '*',
  '/',
  '%',
  'map',
  'filter',
  'reduce',
  'all',
  'none',
  'some',
  'merge',
  'in',
  'cat',
  'substr',
] as const;

/** One of {@link JSONLOGIC_OPERATORS}. */
export type JsonLogicOperator = (typeof JSONLOGIC_OPERATORS)[number];

const ALLOWED = new Set<string>(JSONLOGIC_OPERATORS);
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);
const DATA_PATH_OPERATORS = new Set(['var', 'missing', 'missing_some']);

/** A JSONLogic problem with its location as path segments relative to the rule. */
export interface JsonLogicProblem {
  path: PropertyKey[];
  code: string;
  message: string;
  hint?: string;
}

interface WalkState {
  nodes: number;
  problems: JsonLogicProblem[];
  tooLarge: boolean;
}

/**
 * Checks a JSONLogic rule against the operator allowlist, the depth cap
 * ({@link LIMITS.jsonLogicMaxDepth}), the size cap ({@link LIMITS.jsonLogicMaxNodes}) and the
 * data-path rules (`var`/`missing` paths must be literal and never name `__proto__`,
 * `prototype` or `constructor`), then the cost caps of `jsonlogic-cost.ts` (nested iterations,
 * estimated cost). Returns issues whose paths start with `path`.
 */
export function validateJsonLogic(rule: unknown, path = ''): ValidationIssue[] {
  return jsonLogicProblems(rule).map((p) => {
    const suffix = formatIssuePath(p.path);
    const full =
      path === ''
        ? suffix
        : suffix === ''
          ? path
          : suffix.startsWith('[')
            ? path + suffix
            : `${path}.${suffix}`;
    return { path: full, code: p.code, message: p.message, ...(p.hint ? { hint: p.hint } : {}) };
  });
}

/** {@link validateJsonLogic} with paths as segments, for zod refinements. */
export function jsonLogicProblems(rule: unknown): JsonLogicProblem[] {
  if (!isPlainObject(rule)) {
    return [
      {
        path: [],
        code: 'invalid_jsonlogic',
        message: 'a JSONLogic rule must be an object with exactly one operator key',
      },
    ];
  }
  const state: WalkState = { nodes: 0, problems: [], tooLarge: false };
  visit(rule, [], 1, state);
  return state.problems.length > 0 ? state.problems : jsonLogicCostProblems(rule);
}

function visit(node: unknown, path: PropertyKey[], depth: number, state: WalkState): void {
  state.nodes += 1;
  if (state.tooLarge) return;
  if (state.nodes > LIMITS.jsonLogicMaxNodes) {
    state.tooLarge = true;
    state.problems.push({
      path: [],
      code: 'jsonlogic_too_large',
      message: `rule has more than ${LIMITS.jsonLogicMaxNodes} nodes`,
    });
    return;
  }
  if (node === null || typeof node !== 'object') return;
  if (depth > LIMITS.jsonLogicMaxDepth) {
    state.problems.push({
      path,
      code: 'jsonlogic_too_deep',
      message: `rule nests deeper than ${LIMITS.jsonLogicMaxDepth} levels`,
    });
    return;
  }
  if (Array.isArray(node)) {
    node.forEach((child, i) => visit(child, [...path, i], depth + 1, state));
    return;
  }
  visitOperator(node as Record<string, unknown>, path, depth, state);
}

function visitOperator(
  node: Record<string, unknown>,
  path: PropertyKey[],
  depth: number,
  state: WalkState,
): void {
  const keys = Object.keys(node);
  if (keys.length !== 1) {
    state.problems.push({
      path,
      code: 'invalid_jsonlogic',
      message: `a JSONLogic rule object must have exactly one operator key, found ${keys.length}`,
    });
    return;
  }
  const op = keys[0];
  const at = [...path, op];
  if (!ALLOWED.has(op)) {
    state.problems.push({
      path: at,
      code: 'jsonlogic_operator_not_allowed',
      message: `JSONLogic operator "${op}" is not allowed`,
      hint: operatorHint(op),
    });
    return;
  }
  if (DATA_PATH_OPERATORS.has(op)) visitDataPaths(op, node[op], at, depth, state);
  else visit(node[op], at, depth + 1, state);
}

function operatorHint(op: string): string {
  if (op === 'method') return '`method` calls arbitrary JavaScript methods and is never allowed';
  if (op === 'between')
    return 'write {"<=": [low, value, high]}; normalizeEnvelope rewrites the legacy `between` form';
  return `allowed operators: ${JSONLOGIC_OPERATORS.join(', ')}`;
}

function visitDataPaths(op: string, args: unknown, at: PropertyKey[], depth: number, state: WalkState): void {
  const list = Array.isArray(args) ? args : [args];
  if (op === 'var') {
    checkDataPath(list[0], Array.isArray(args) ? [...at, 0] : at, state);
    list.slice(1).forEach((fallback, i) => visit(fallback, [...at, i + 1], depth + 2, state));
    return;
  }
  if (op === 'missing_some') {
    // The count is evaluated like any operand: it must pass the same checks.
    if (list.length > 0) visit(list[0], Array.isArray(args) ? [...at, 0] : at, depth + 2, state);
    const paths = list[1];
    if (Array.isArray(paths)) paths.forEach((p, i) => checkDataPath(p, [...at, 1, i], state));
    else checkDataPath(paths, [...at, 1], state);
    return;
  }
  list.forEach((p, i) => checkDataPath(p, Array.isArray(args) ? [...at, i] : at, state));
}

function checkDataPath(value: unknown, at: PropertyKey[], state: WalkState): void {
  state.nodes += 1;
  if (value === undefined || value === null || typeof value === 'number') return;
  if (typeof value !== 'string') {
    state.problems.push({
      path: at,
      code: 'jsonlogic_dynamic_path',
      message: 'data paths must be literal strings or numbers',
      hint: 'computed paths cannot be checked before the run',
    });
    return;
  }
  const bad = value.split('.').find((segment) => FORBIDDEN_SEGMENTS.has(segment));
  if (bad)
    state.problems.push({
      path: at,
      code: 'jsonlogic_forbidden_path',
      message: `data path "${value}" names "${bad}"`,
    });
}
