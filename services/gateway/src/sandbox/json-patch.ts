/** One JSON Patch operation (RFC 6902). */
export interface PatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

export type PatchResult = { ok: true; value: unknown } | { ok: false; index: number; message: string };

/** A copy of a JSON value (a draft is JSON: it came in a request body or a model's answer). */
export function copyJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** Keys a patch may not write: they would reach an object's prototype. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Apply `operations` to a copy of `document`, all or nothing (RFC 6902): the first operation
 * that cannot apply stops it, and `document` is never modified. A patch is the model's answer,
 * so it is untrusted: it cannot write `__proto__` or reach outside the document.
 */
export function applyPatch(document: unknown, operations: readonly PatchOperation[]): PatchResult {
  let doc = copyJson(document);
  for (const [index, op] of operations.entries()) {
    try {
      doc = applyOne(doc, op);
    } catch (error) {
      return {
        ok: false,
        index,
        message: `operation ${index} (${op.op} ${op.path}): ${(error as Error).message}`,
      };
    }
  }
  return { ok: true, value: doc };
}

function applyOne(doc: unknown, op: PatchOperation): unknown {
  switch (op.op) {
    case 'add':
      return add(doc, parsePointer(op.path), copyJson(required(op.value)));
    case 'remove':
      return remove(doc, parsePointer(op.path)).doc;
    case 'replace': {
      const tokens = parsePointer(op.path);
      const value = copyJson(required(op.value));
      return tokens.length ? add(remove(doc, tokens).doc, tokens, value) : value;
    }
    case 'move': {
      const from = parsePointer(required(op.from));
      if (op.path.startsWith(`${op.from}/`)) throw new Error('cannot move a value into itself');
      const taken = remove(doc, from);
      return add(taken.doc, parsePointer(op.path), taken.value);
    }
    case 'copy':
      return add(doc, parsePointer(op.path), copyJson(get(doc, parsePointer(required(op.from)))));
    case 'test':
      if (JSON.stringify(get(doc, parsePointer(op.path))) !== JSON.stringify(op.value))
        throw new Error('test failed');
      return doc;
    default:
      throw new Error(`unknown op "${String((op as { op: unknown }).op)}"`);
  }
}

function required<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('missing value');
  return value;
}

/** `/a/b~1c/0` → `['a', 'b/c', '0']`; `''` is the whole document. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`"${pointer}" is not a JSON Pointer`);
  const tokens = pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  const bad = tokens.find((t) => FORBIDDEN.has(t));
  if (bad) throw new Error(`"${bad}" may not be written`);
  return tokens;
}

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

function get(doc: unknown, tokens: string[]): unknown {
  let at = doc;
  for (const token of tokens) {
    if (!isContainer(at)) throw new Error('path does not exist');
    const key = Array.isArray(at) ? arrayIndex(at, token, false) : token;
    if (!Object.prototype.hasOwnProperty.call(at, key)) throw new Error('path does not exist');
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

function add(doc: unknown, tokens: string[], value: unknown): unknown {
  if (!tokens.length) return value;
  const parent = get(doc, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : arrayIndex(parent, last, true);
    parent.splice(index, 0, value);
  } else if (isContainer(parent)) {
    Object.defineProperty(parent, last, { value, enumerable: true, writable: true, configurable: true });
  } else throw new Error('parent is not an object or array');
  return doc;
}

function remove(doc: unknown, tokens: string[]): { doc: unknown; value: unknown } {
  if (!tokens.length) throw new Error('cannot remove the whole document');
  const value = get(doc, tokens);
  const parent = get(doc, tokens.slice(0, -1)) as Container;
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, false), 1);
  else delete parent[last];
  return { doc, value };
}

function arrayIndex(array: unknown[], token: string, forInsert: boolean): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new Error(`"${token}" is not an array index`);
  const index = Number(token);
  if (index > array.length || (!forInsert && index === array.length))
    throw new Error(`index ${index} is out of range`);
  return index;
}
