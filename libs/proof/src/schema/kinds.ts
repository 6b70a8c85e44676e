import type { Finding } from '../verdict';
import { owner, type Conjunct } from './conjunct';
import { hasKeyword } from './schema-read';

/**
 * The disjoint kinds of JSON values. `integer` and `fraction` (a number that is not an integer)
 * split JSON Schema's `number`, so `integer ⊂ number` becomes plain set intersection.
 */
export type Kind = 'null' | 'boolean' | 'integer' | 'fraction' | 'string' | 'array' | 'object';

/** Every kind, simplest first: the order witnesses try them in. */
export const ALL_KINDS: readonly Kind[] = [
  'null',
  'boolean',
  'integer',
  'fraction',
  'string',
  'array',
  'object',
];

const TYPE_KINDS: Readonly<Record<string, readonly Kind[]>> = {
  null: ['null'],
  boolean: ['boolean'],
  integer: ['integer'],
  number: ['integer', 'fraction'],
  string: ['string'],
  array: ['array'],
  object: ['object'],
};

/** The kinds a schema's `type` admits (`nullable: true` adds null, as Ajv reads it); all when untyped. */
export function kindsOfSchema(schema: Readonly<Record<string, unknown>>): ReadonlySet<Kind> {
  const type = hasKeyword(schema, 'type') ? schema.type : undefined;
  const names = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
  if (names === undefined) return new Set(ALL_KINDS);
  const kinds = new Set<Kind>(
    names.flatMap((name) => (typeof name === 'string' ? (TYPE_KINDS[name] ?? []) : [])),
  );
  if (schema.nullable === true) kinds.add('null');
  return kinds;
}

/** The kind of a JSON value; `undefined` for what JSON cannot hold. */
export function kindOfValue(value: unknown): Kind | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
      if (!Number.isFinite(value)) return undefined;
      return Number.isInteger(value) ? 'integer' : 'fraction';
    case 'string':
      return 'string';
    case 'object':
      return Array.isArray(value) ? 'array' : 'object';
    default:
      return undefined;
  }
}

/** The kinds every conjunct's `type` admits, or a finding when none is left. */
export function allowedKinds(
  conjuncts: readonly Conjunct[],
  pointer: string,
): { kinds: Set<Kind>; findings: Finding[] } {
  const kinds = new Set<Kind>(ALL_KINDS);
  for (const { schema } of conjuncts) {
    const own = kindsOfSchema(schema);
    for (const kind of [...kinds]) if (!own.has(kind)) kinds.delete(kind);
  }
  return { kinds, findings: kinds.size > 0 ? [] : [typeFinding(conjuncts, pointer)] };
}

function typeFinding(conjuncts: readonly Conjunct[], pointer: string): Finding {
  const typed = conjuncts.filter((c) => hasKeyword(c.schema, 'type'));
  for (const a of typed) {
    for (const b of typed) {
      if (a === b || overlaps(kindsOfSchema(a.schema), kindsOfSchema(b.schema))) continue;
      const types = `${owner(a.label)} type ${describeType(a)} and ${owner(b.label)} type ${describeType(b)}`;
      const message = `${types} have no value in common`;
      return { pointer, keywords: ['type'], message };
    }
  }
  const all = typed.map((c) => `${owner(c.label)} ${describeType(c)}`).join(', ');
  return { pointer, keywords: ['type'], message: `no value has every type required: ${all}` };
}

function overlaps(a: ReadonlySet<Kind>, b: ReadonlySet<Kind>): boolean {
  return [...a].some((kind) => b.has(kind));
}

function describeType(conjunct: Conjunct): string {
  const nullable = conjunct.schema.nullable === true ? ' (nullable)' : '';
  return `${JSON.stringify(conjunct.schema.type)}${nullable}`;
}
