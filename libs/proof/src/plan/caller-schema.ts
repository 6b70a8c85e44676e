import type { TaskEnvelope } from '@flex/contracts';

export type SchemaObject = Readonly<Record<string, unknown>>;

const isObject = (v: unknown): v is SchemaObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The caller schema's top-level property schemas and required keys. */
export function callerProperties(envelope: TaskEnvelope): {
  properties: Record<string, unknown>;
  required: string[];
} {
  const schema = envelope.outputContract.schema as Record<string, unknown>;
  const properties = isObject(schema.properties) ? { ...schema.properties } : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((k): k is string => typeof k === 'string')
    : [];
  return { properties, required: [...new Set(required)] };
}

/**
 * The caller's schema for one property as a standalone schema a node can carry: local references
 * (`#/definitions/…`, `#/$defs/…`) keep working because the root's definitions travel with it.
 * Undefined when the fragment points anywhere else (it would mean something else on its own).
 */
export function portableFragment(envelope: TaskEnvelope, fragment: unknown): SchemaObject | undefined {
  if (fragment === true || (isObject(fragment) && Object.keys(fragment).length === 0)) return undefined;
  if (!isObject(fragment)) return fragment === false ? { not: {} } : undefined;
  const refs = refsIn(fragment);
  if (refs.length === 0) return fragment;
  if (!refs.every((r) => r.startsWith('#/definitions/') || r.startsWith('#/$defs/'))) return undefined;
  const root = envelope.outputContract.schema as Record<string, unknown>;
  return {
    ...fragment,
    ...(isObject(root.definitions) ? { definitions: root.definitions } : {}),
    ...(isObject(root.$defs) ? { $defs: root.$defs } : {}),
  };
}

function refsIn(value: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 64) return out;
  if (Array.isArray(value)) value.forEach((v) => refsIn(v, out, depth + 1));
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples')
        refsIn(v, out, depth + 1);
    }
  }
  return out;
}

// Keywords that do not hold for a concatenation just because they hold for each part.
const NOT_DISTRIBUTIVE = ['uniqueItems', 'contains', 'minContains', 'maxContains', 'minItems', 'maxItems'];

/** The binding for one lane of a concatenated array: the caller's item rules, exactly `count` items. */
export function laneFragment(fragment: SchemaObject, count: number): SchemaObject {
  const lane: Record<string, unknown> = { ...fragment, minItems: count, maxItems: count };
  for (const k of NOT_DISTRIBUTIVE) if (k !== 'minItems' && k !== 'maxItems') delete lane[k];
  return lane;
}

/** The keywords of an array fragment a lane split cannot carry (checked on the whole at run time). */
export const laneUnprovable = (fragment: SchemaObject): string[] =>
  NOT_DISTRIBUTIVE.filter((k) => k !== 'minItems' && k !== 'maxItems' && k in fragment);

/**
 * The binding a node producing `key` carries: the caller's fragment, and when the node is asked
 * for a count through its knob, exactly that many items (the knob's meaning: "produce exactly
 * variantCount"), so the proof can rely on the count the plan asks for.
 */
export function countedFragment(
  fragment: SchemaObject | undefined,
  count: number | undefined,
): SchemaObject | undefined {
  if (count === undefined) return fragment;
  return { ...(fragment ?? { type: 'array' }), minItems: count, maxItems: count };
}
