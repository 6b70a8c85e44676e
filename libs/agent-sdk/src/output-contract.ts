import type { AgentFeedback, AgentInvocation } from './agent.types';

/** A JSON Schema fragment, read loosely: only the keywords an agent can act on are looked at. */
export type SchemaView = Record<string, unknown>;

/** What the schemas applying at one place in the output allow (the tightest of each bound). */
export interface Bounds {
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  minItems?: number;
  minimum?: number;
  maximum?: number;
  /** Allowed values (`enum`, or `[const]`), when some schema restricts them. */
  allowed?: readonly unknown[];
}

const MAX_DEPTH = 32;

/**
 * Cut `text` to at most `max` Unicode code points (what JSON Schema's `maxLength` counts), never
 * inside a surrogate pair.
 */
export function truncateCodePoints(text: string, max: number): string {
  const limit = Math.max(0, Math.floor(max));
  if (text.length <= limit) return text;
  let units = 0;
  let points = 0;
  for (const char of text) {
    if (points === limit) break;
    units += char.length;
    points += 1;
  }
  return text.slice(0, units);
}

/** Length in code points (JSON Schema's `maxLength` unit). */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

/**
 * The schema an agent should meet on this invocation: the node's output contract together with
 * what earlier attempts were refused for (`feedback`), so a repair attempt respects both.
 */
export function effectiveOutputSchema(
  invocation: Pick<AgentInvocation, 'outputSchema' | 'feedback'>,
): SchemaView {
  const parts = [
    invocation.outputSchema,
    invocation.feedback ? feedbackSchema(invocation.feedback) : undefined,
  ].filter((s): s is SchemaView => s !== undefined);
  return { allOf: parts };
}

/**
 * The bounds feedback errors name, as a schema: `maxLength` at `/copyVariants/1/body` becomes a
 * `maxLength` on every item's `body` (an item index stands for all items). Limits are read from the
 * validator's message ("must NOT have more than 40 characters").
 */
export function feedbackSchema(feedback: AgentFeedback): SchemaView {
  const root: SchemaView = {};
  for (const error of feedback.errors) {
    const bound = boundOf(error.keyword, error.message);
    if (!bound) continue;
    const at = parsePointer(error.path).reduce<SchemaView>(
      (schema, segment) => childFor(schema, segment),
      root,
    );
    Object.assign(at, bound);
  }
  return root;
}

/** The bounds every schema applying at `path` (a JSON pointer or segments) sets together. */
export function boundsAt(
  schema: SchemaView | undefined,
  path: string | ReadonlyArray<string | number>,
): Bounds {
  const segments = typeof path === 'string' ? parsePointer(path) : path;
  const bounds: Bounds = {};
  for (const s of schemasAt(schema, segments)) mergeBounds(bounds, s);
  return bounds;
}

/** The sub-schemas that apply at `path` (through `allOf`, `properties` and `items`). */
export function schemasAt(
  schema: SchemaView | undefined,
  path: ReadonlyArray<string | number>,
): SchemaView[] {
  let current = schema ? flatten(schema, 0) : [];
  for (const segment of path) {
    current = current.flatMap((s) => {
      const child =
        typeof segment === 'number' ? s.items : (s.properties as SchemaView | undefined)?.[segment];
      return isSchema(child) ? flatten(child, 0) : [];
    });
  }
  return current;
}

/**
 * Bring a value within the string, array and number bounds of `schema` (recursively): strings cut
 * by code point, arrays cut to `maxItems`, numbers clamped, a value outside an `enum` replaced by
 * its first member. What no bound speaks about is left as it is.
 */
export function fitToSchema<T>(value: T, schema: SchemaView | undefined, depth = 0): T {
  if (!schema || depth > MAX_DEPTH) return value;
  const bounds = boundsAt(schema, []);
  if (
    bounds.allowed &&
    bounds.allowed.length > 0 &&
    !bounds.allowed.some((a) => JSON.stringify(a) === JSON.stringify(value))
  ) {
    return bounds.allowed[0] as T;
  }
  if (typeof value === 'string')
    return (bounds.maxLength !== undefined ? truncateCodePoints(value, bounds.maxLength) : value) as T;
  if (typeof value === 'number')
    return Math.min(bounds.maximum ?? Infinity, Math.max(bounds.minimum ?? -Infinity, value)) as T;
  if (Array.isArray(value)) {
    const kept = bounds.maxItems !== undefined ? value.slice(0, bounds.maxItems) : value;
    return kept.map((item, i) => fitToSchema(item, { allOf: schemasAt(schema, [i]) }, depth + 1)) as T;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => [
      k,
      fitToSchema(v, { allOf: schemasAt(schema, [k]) }, depth + 1),
    ]);
    return Object.fromEntries(entries) as T;
  }
  return value;
}

function flatten(schema: SchemaView, depth: number): SchemaView[] {
  if (depth > MAX_DEPTH) return [];
  const nested = Array.isArray(schema.allOf)
    ? schema.allOf.filter(isSchema).flatMap((s) => flatten(s, depth + 1))
    : [];
  return [schema, ...nested];
}

function mergeBounds(bounds: Bounds, s: SchemaView): void {
  const lower = (key: 'maxLength' | 'maxItems' | 'maximum') => {
    if (typeof s[key] === 'number') bounds[key] = Math.min(bounds[key] ?? Infinity, s[key] as number);
  };
  const upper = (key: 'minLength' | 'minItems' | 'minimum') => {
    if (typeof s[key] === 'number') bounds[key] = Math.max(bounds[key] ?? -Infinity, s[key] as number);
  };
  lower('maxLength');
  lower('maxItems');
  lower('maximum');
  upper('minLength');
  upper('minItems');
  upper('minimum');
  const allowed = 'const' in s ? [s.const] : Array.isArray(s.enum) ? s.enum : undefined;
  if (allowed)
    bounds.allowed = bounds.allowed
      ? bounds.allowed.filter((a) => allowed.some((b) => JSON.stringify(a) === JSON.stringify(b)))
      : allowed;
}

function boundOf(keyword: string | undefined, message: string): SchemaView | undefined {
  const n = Number(/(\d+)/.exec(message)?.[1]);
  if (!Number.isFinite(n)) return undefined;
  switch (keyword) {
    case 'maxLength':
    case 'minLength':
    case 'maxItems':
    case 'minItems':
      return { [keyword]: n };
    default:
      return undefined;
  }
}

function childFor(schema: SchemaView, segment: string | number): SchemaView {
  if (typeof segment === 'number') {
    if (!isSchema(schema.items)) schema.items = {};
    return schema.items as SchemaView;
  }
  const properties = (
    isSchema(schema.properties) ? schema.properties : (schema.properties = {})
  ) as SchemaView;
  if (!isSchema(properties[segment])) properties[segment] = {};
  return properties[segment] as SchemaView;
}

/** JSON pointer segments; an all-digit segment is an array index. */
function parsePointer(pointer: string): Array<string | number> {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function isSchema(value: unknown): value is SchemaView {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
