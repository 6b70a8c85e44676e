import { canonicalJson } from '@flex/contracts';
import { escapePointerToken } from '../untrusted/json-path';

type SchemaObject = Readonly<Record<string, unknown>>;

export type MergeConflictCode = 'TYPE_MISMATCH' | 'ENUM_CONFLICT' | 'MERGE_UNSUPPORTED';

/** Why two facet schemas sharing a property key cannot merge; `pointer` is inside the merged schema. */
export class MergeConflict extends Error {
  constructor(
    readonly code: MergeConflictCode,
    readonly pointer: string,
    readonly keyword: string,
    message: string,
  ) {
    super(message);
  }
}

// Annotations never change what validates: the first facet's (by name) wins.
const ANNOTATIONS = new Set([
  'title',
  'description',
  '$comment',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/**
 * Merges two facet schemas written for one property. Facets sharing a key compose one value:
 * the types must be the same, enums intersect, object properties and `required` are united
 * (recursively for a property both define), `items` schemas merge. Any other keyword both
 * schemas set differently is `MERGE_UNSUPPORTED` rather than a guess.
 */
export function mergeSchemas(a: SchemaObject, b: SchemaObject, pointer: string): SchemaObject {
  if (canonicalJson(a) === canonicalJson(b)) return a;
  const [ta, tb] = [typeOf(a), typeOf(b)];
  if (ta !== tb)
    throw new MergeConflict('TYPE_MISMATCH', pointer, 'type', `type ${ta} cannot merge with type ${tb}`);
  const merged: Record<string, unknown> = { ...a };
  for (const [keyword, right] of Object.entries(b)) {
    const left = a[keyword];
    if (left === undefined || canonicalJson(left) === canonicalJson(right)) merged[keyword] = left ?? right;
    else if (!ANNOTATIONS.has(keyword)) merged[keyword] = mergeKeyword(keyword, left, right, pointer);
  }
  return merged;
}

function mergeKeyword(keyword: string, left: unknown, right: unknown, pointer: string): unknown {
  switch (keyword) {
    case 'type':
      return left; // already known to name the same set of types
    case 'enum':
      return intersectEnums(left, right, pointer);
    case 'properties':
      return mergeProperties(
        left as Record<string, SchemaObject>,
        right as Record<string, SchemaObject>,
        pointer,
      );
    case 'required':
      return [...new Set([...(left as string[]), ...(right as string[])])].sort();
    case 'items':
      if (isSchemaObject(left) && isSchemaObject(right)) return mergeSchemas(left, right, `${pointer}/items`);
      break;
  }
  throw new MergeConflict(
    'MERGE_UNSUPPORTED',
    `${pointer}/${escapePointerToken(keyword)}`,
    keyword,
    `both facets set "${keyword}" differently`,
  );
}

function intersectEnums(left: unknown, right: unknown, pointer: string): unknown[] {
  const allowed = new Set((right as unknown[]).map((v) => canonicalJson(v)));
  const both = (left as unknown[]).filter((v) => allowed.has(canonicalJson(v)));
  if (both.length === 0)
    throw new MergeConflict('ENUM_CONFLICT', `${pointer}/enum`, 'enum', 'the enums share no value');
  return both;
}

function mergeProperties(
  left: Record<string, SchemaObject>,
  right: Record<string, SchemaObject>,
  pointer: string,
): Record<string, SchemaObject> {
  const merged: Record<string, SchemaObject> = { ...left };
  for (const [name, schema] of Object.entries(right)) {
    const at = `${pointer}/properties/${escapePointerToken(name)}`;
    merged[name] = left[name] === undefined ? schema : mergeSchemas(left[name], schema, at);
  }
  return merged;
}

/** The declared type as one comparable string: `string`, `null|string`, or `(none)`. */
function typeOf(schema: SchemaObject): string {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return [...type].sort().join('|');
  return '(none)';
}

function isSchemaObject(value: unknown): value is SchemaObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
