import { createHash } from 'node:crypto';
import { formatIssuePath } from '../shared/issue-path';

/** Thrown when a value has no canonical JSON form; `path` says where the offending value sits. */
export class CanonicalJsonError extends Error {
  override name = 'CanonicalJsonError';
  readonly code = 'CANONICAL_JSON_UNSUPPORTED';
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`cannot canonicalize ${path === '' ? 'value' : `"${path}"`}: ${reason}`);
  }
}

/**
 * The RFC 8785 (JCS) serialization of a JSON value: no whitespace, object keys sorted by UTF-16
 * code units, numbers in ECMAScript shortest round-trip form (`-0` → `0`), strings escaped as
 * `JSON.stringify` does. Two values that mean the same JSON serialize to the same bytes.
 *
 * Throws {@link CanonicalJsonError} for NaN, ±Infinity, bigint, functions, symbols, `undefined`
 * (at the top level or in an array), lone surrogates, cycles, and non-plain objects (Date, Map,
 * class instances). Object properties whose value is `undefined` are omitted, as JSON and zod
 * omit them, so a value hashes the same before and after a JSON round trip.
 */
export function canonicalJson(value: unknown): string {
  try {
    return fast(value, 0);
  } catch (error) {
    if (error !== NOT_FAST) throw error;
  }
  // Something the fast walk does not take: walk again, keeping the path to name what is refused (one
  // path for the whole walk, pushed and popped: it is formatted only when a value is refused).
  return serialize(value, [], new Set());
}

/** SHA-256 (lowercase hex) of the UTF-8 bytes of {@link canonicalJson}. */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}

/** A plain JSON value copied with its keys in canonical order, and the copy's JSON text. */
export interface CanonicalCopy {
  /** {@link canonicalJson} of the value (and of the copy). */
  json: string;
  /** The value as a JSON round trip gives it back (unshared), each object's keys in canonical order. */
  copy: unknown;
}

/**
 * {@link canonicalJson} of a plain JSON value, and the value copied as a JSON round trip would copy it,
 * in one walk: for the event store, which sends an event's JSON, hashes its canonical form and keeps a
 * copy. The copy's objects get their keys in canonical order, so JSON.stringify of the copy (native,
 * no key sorting) is the canonical text. Undefined for anything else — what the fast walk does not take
 * (see NOT_FAST), a key that V8 would order first (an array index: any key starting with a digit) or
 * `__proto__` —: the caller then takes the long way (JSON.stringify, JSON.parse, canonicalJson).
 */
export function canonicalCopy(value: unknown): CanonicalCopy | undefined {
  let copy: unknown;
  try {
    copy = plainCopy(value, 0);
  } catch (error) {
    if (error === NOT_FAST) return undefined;
    throw error;
  }
  return { json: JSON.stringify(copy), copy };
}

function plainCopy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      if (!value.isWellFormed()) throw NOT_FAST;
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw NOT_FAST;
      // -0 as a JSON round trip gives it back: 0.
      return value === 0 ? 0 : value;
    case 'boolean':
      return value;
    case 'object': {
      if (value === null) return null;
      if (depth >= FAST_DEPTH) throw NOT_FAST;
      if (Array.isArray(value)) {
        const items: unknown[] = new Array(value.length);
        for (let i = 0; i < value.length; i++) {
          if (value[i] === undefined) throw NOT_FAST;
          items[i] = plainCopy(value[i], depth + 1);
        }
        return items;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) throw NOT_FAST;
      const record = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(record).sort()) {
        const first = key.charCodeAt(0);
        if ((first >= 48 && first <= 57) || key === '__proto__' || !key.isWellFormed()) throw NOT_FAST;
        const member = record[key];
        if (member !== undefined) out[key] = plainCopy(member, depth + 1);
      }
      return out;
    }
    default:
      throw NOT_FAST;
  }
}

/**
 * The fast walk, for what the event store hashes on every append: no path and no set of the objects
 * on the way down (a cycle shows as depth), and a string that needs no escape is quoted as it is.
 * Whatever it does not take — anything refused (a lone surrogate, a Date, a cycle…) or a value nested
 * deeper than {@link FAST_DEPTH} — throws NOT_FAST, and the full walk takes the value again.
 */
const NOT_FAST = Symbol('not fast');
const FAST_DEPTH = 200;
/** What JSON.stringify escapes (", \\, controls), and surrogates: a string without any is its own JSON text. */
// eslint-disable-next-line no-control-regex -- the controls are what it looks for
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;

function fastString(value: string): string {
  if (!NEEDS_CARE.test(value)) return `"${value}"`;
  if (!value.isWellFormed()) throw NOT_FAST;
  return JSON.stringify(value);
}

function fast(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return fastString(value);
    case 'number':
      // For a finite number, String is JSON.stringify's form (ECMAScript shortest round trip, -0 → 0).
      if (!Number.isFinite(value)) throw NOT_FAST;
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (depth >= FAST_DEPTH) throw NOT_FAST;
      return Array.isArray(value) ? fastArray(value, depth + 1) : fastRecord(value, depth + 1);
    default:
      throw NOT_FAST;
  }
}

function fastArray(value: unknown[], depth: number): string {
  let text = '[';
  for (let i = 0; i < value.length; i++) {
    if (value[i] === undefined) throw NOT_FAST;
    text += (i === 0 ? '' : ',') + fast(value[i], depth);
  }
  return `${text}]`;
}

function fastRecord(value: object, depth: number): string {
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw NOT_FAST;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let text = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    text += (text.length === 1 ? '' : ',') + fastString(key) + ':' + fast(member, depth);
  }
  return `${text}}`;
}

function serialize(value: unknown, path: PropertyKey[], stack: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return serializeString(value, path);
    case 'number':
      if (!Number.isFinite(value))
        throw new CanonicalJsonError(formatIssuePath(path), `${value} is not a JSON number`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return value === null ? 'null' : serializeObject(value, path, stack);
    default:
      throw new CanonicalJsonError(formatIssuePath(path), `${typeof value} is not a JSON value`);
  }
}

function serializeString(value: string, path: PropertyKey[]): string {
  if (!value.isWellFormed())
    throw new CanonicalJsonError(
      formatIssuePath(path),
      'string contains a lone surrogate (not valid Unicode)',
    );
  return JSON.stringify(value);
}

function serializeObject(value: object, path: PropertyKey[], stack: Set<object>): string {
  if (stack.has(value)) throw new CanonicalJsonError(formatIssuePath(path), 'circular reference');
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
    throw new CanonicalJsonError(
      formatIssuePath(path),
      `${value.constructor?.name ?? 'non-plain'} object is not a JSON value`,
    );
  }
  stack.add(value);
  try {
    return Array.isArray(value) ? serializeArray(value, path, stack) : serializeRecord(value, path, stack);
  } finally {
    stack.delete(value);
  }
}

// The two below build their text by concatenation (V8 joins such strings lazily): on the event store's
// append path, where each event's content is hashed, arrays of parts and join cost half the time.

function serializeArray(value: unknown[], path: PropertyKey[], stack: Set<object>): string {
  let text = '[';
  for (let i = 0; i < value.length; i++) {
    path.push(i);
    if (value[i] === undefined)
      throw new CanonicalJsonError(formatIssuePath(path), 'undefined is not a JSON value');
    text += (i === 0 ? '' : ',') + serialize(value[i], path, stack);
    path.pop();
  }
  return `${text}]`;
}

function serializeRecord(value: object, path: PropertyKey[], stack: Set<object>): string {
  const record = value as Record<string, unknown>;
  // Default sort compares UTF-16 code units, which is exactly RFC 8785 §3.2.3.
  const keys = Object.keys(record).sort();
  let text = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    const name = serializeString(key, path);
    path.push(key);
    text += (text.length === 1 ? '' : ',') + name + ':' + serialize(member, path, stack);
    path.pop();
  }
  return `${text}}`;
}
