import type { Finding, JsonSchema } from '../verdict';
import { isSchemaObject, schemaListAt, type SchemaObject } from './schema-read';

/** One schema of a conjunction, with the name findings call it by ("the facet", "the caller"). */
export interface Labelled {
  readonly schema: JsonSchema;
  readonly label: string;
}

/** A conjunct in object form; `true` schemas are dropped, `false` ones end the analysis. */
export interface Conjunct {
  readonly schema: SchemaObject;
  readonly label: string;
}

/** The conjuncts a list of schemas stands for, or the label of a `false` among them. */
export type Conjunction =
  | { readonly empty: false; readonly conjuncts: readonly Conjunct[] }
  | { readonly empty: true; readonly falseFrom: string };

/**
 * The pointer segment findings use for "every element of this array": `/copyVariants`, then `*`,
 * then `/body`. A conflict in `items` holds for each element, so no index is more right than another.
 */
export const ANY_ITEM = '*';

/** Labels every schema, by `labels[i]` when given, else "schema 1", "schema 2", … */
export function labelSchemas(schemas: readonly JsonSchema[], labels?: readonly string[]): Labelled[] {
  return schemas.map((schema, i) => ({ schema, label: labels?.[i] ?? `schema ${i + 1}` }));
}

/**
 * Flattens the parts into object conjuncts. `allOf` members, and the only branch of a one-branch
 * `anyOf` / `oneOf`, are conjuncts too: a value must satisfy them as well as their parent.
 */
export function toConjunction(parts: readonly Labelled[]): Conjunction {
  const conjuncts: Conjunct[] = [];
  // A schema met twice (an allOf member under a union split's copy of its parent) counts once.
  const seen = new Set<object>();
  const stack = [...parts].reverse();
  for (let part = stack.pop(); part !== undefined; part = stack.pop()) {
    const { schema, label } = part;
    if (schema === false) return { empty: true, falseFrom: label };
    if (!isSchemaObject(schema) || seen.has(schema)) continue;
    seen.add(schema);
    conjuncts.push({ schema, label });
    const members = [
      ...(schemaListAt(schema, 'allOf') ?? []),
      ...singleBranch(schema, 'anyOf'),
      ...singleBranch(schema, 'oneOf'),
    ];
    for (const member of members.reverse()) stack.push({ schema: member, label });
  }
  return { empty: false, conjuncts };
}

function singleBranch(schema: SchemaObject, keyword: string): readonly JsonSchema[] {
  const branches = schemaListAt(schema, keyword);
  return branches?.length === 1 ? branches : [];
}

/** "the caller's": how a message names the conjunct a keyword comes from. */
export function owner(label: string): string {
  return `${label}'s`;
}

/** The pointer to property `name` under `pointer` (RFC 6901 escaping). */
export function childPointer(pointer: string, name: string): string {
  return `${pointer}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Keywords in first-seen order, without repeats. */
export function uniqueKeywords(keywords: readonly string[]): string[] {
  return [...new Set(keywords)];
}

/** The conflict search applied to a nested conjunction (an element's, a property's, a branch's). */
export type Recurse = (parts: readonly Labelled[], pointer: string) => Finding[];

/**
 * How many more nested conjunctions one search may visit: unions multiply them, so every search
 * shares one allowance and, once it is spent, assumes what it can no longer check (no conflict,
 * no candidate), which weakens the answer to `unknown` but never makes it wrong.
 */
export interface Budget {
  left: number;
}

/** Takes one step from the budget; false once it is spent. */
export function spend(budget: Budget): boolean {
  budget.left -= 1;
  return budget.left >= 0;
}
