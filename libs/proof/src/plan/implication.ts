import { canonicalJson } from '@flex/contracts';
import type { JsonSchema } from '../verdict';

type S = Readonly<Record<string, unknown>>;
const isObject = (v: unknown): v is S => v !== null && typeof v === 'object' && !Array.isArray(v);
const num = (s: S, k: string): number | undefined =>
  typeof s[k] === 'number' ? (s[k] as number) : undefined;
const ANNOTATIONS = new Set(['title', 'description', '$comment', 'default', 'examples', '$schema', '$id']);
const MAX_DEPTH = 32;

/**
 * True when every value valid against `facet` is valid against `caller` (sound, incomplete): each
 * keyword of the caller's fragment is matched by an equal or tighter one of the facet's. A node
 * whose facet already implies the caller's fragment needs no binding for it to be proven.
 */
export function implies(facet: JsonSchema, caller: JsonSchema, depth = 0): boolean {
  if (caller === true || (isObject(caller) && Object.keys(caller).every((k) => ANNOTATIONS.has(k))))
    return true;
  if (facet === false) return true;
  if (!isObject(facet) || !isObject(caller) || depth > MAX_DEPTH) return false;
  return Object.keys(caller).every((k) => ANNOTATIONS.has(k) || keywordImplied(facet, caller, k, depth));
}

function keywordImplied(f: S, c: S, k: string, depth: number): boolean {
  switch (k) {
    case 'type':
      return typesImplied(f.type, c.type);
    case 'required':
      return (
        Array.isArray(c.required) &&
        Array.isArray(f.required) &&
        c.required.every((r) => (f.required as unknown[]).includes(r))
      );
    case 'properties':
      return propertiesImplied(f, c, depth);
    case 'items':
      return (
        isObject(c.items) &&
        f.items !== undefined &&
        !Array.isArray(f.items) &&
        implies(f.items as JsonSchema, c.items, depth + 1)
      );
    case 'additionalProperties':
      return c.additionalProperties === true || f.additionalProperties === false;
    case 'minItems':
    case 'minLength':
    case 'minimum':
    case 'minProperties':
      return atLeast(num(f, k), num(c, k));
    case 'maxItems':
    case 'maxLength':
    case 'maximum':
    case 'maxProperties':
      return atLeast(num(c, k), num(f, k));
    case 'enum':
      return (
        Array.isArray(c.enum) &&
        Array.isArray(f.enum) &&
        f.enum.every((v) => (c.enum as unknown[]).some((w) => canonicalJson(v) === canonicalJson(w)))
      );
    case 'const':
      return 'const' in f && canonicalJson(f.const) === canonicalJson(c.const);
    default:
      return canonicalJson(f[k] ?? null) === canonicalJson(c[k]); // the same keyword, the same value
  }
}

const atLeast = (a: number | undefined, b: number | undefined) =>
  a !== undefined && b !== undefined && a >= b;

function typesImplied(f: unknown, c: unknown): boolean {
  const list = (t: unknown) => (Array.isArray(t) ? t : t === undefined ? [] : [t]);
  const allowed = list(c);
  const actual = list(f);
  return (
    actual.length > 0 &&
    actual.every((t) => allowed.includes(t) || (t === 'integer' && allowed.includes('number')))
  );
}

/** Each property the caller constrains is either constrained as tightly by the facet, or cannot occur. */
function propertiesImplied(f: S, c: S, depth: number): boolean {
  if (!isObject(c.properties)) return false;
  const own = isObject(f.properties) ? f.properties : {};
  return Object.entries(c.properties).every(([key, schema]) =>
    key in own
      ? implies(own[key] as JsonSchema, schema as JsonSchema, depth + 1)
      : f.additionalProperties === false,
  );
}
