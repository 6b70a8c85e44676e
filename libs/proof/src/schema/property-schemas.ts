import { compileSafePattern } from '@flex/facets';
import type { JsonSchema } from '../verdict';
import {
  entryOf,
  hasKeyword,
  isSchemaObject,
  schemaAt,
  schemaMapAt,
  stringsAt,
  type SchemaObject,
} from './schema-read';
import type { Conjunct } from './conjunct';

/** A subschema that certainly applies to a property, and the keyword it comes through. */
export interface NamedSchema {
  readonly schema: JsonSchema;
  readonly via: 'properties' | 'patternProperties' | 'additionalProperties';
}

/**
 * The subschemas `schema` certainly applies to a property called `name`: `properties[name]`,
 * every `patternProperties` entry whose pattern matches (on the engine Ajv uses), and
 * `additionalProperties` when neither does. A pattern the safe engine refuses could match or not,
 * so `additionalProperties` is then left out: fewer schemas can only hide a conflict, not invent one.
 */
export function namedSchemas(schema: SchemaObject, name: string): NamedSchema[] {
  const named: NamedSchema[] = [];
  const own = entryOf(schemaMapAt(schema, 'properties'), name);
  if (own !== undefined) named.push({ schema: own, via: 'properties' });
  const patterns = schemaMapAt(schema, 'patternProperties');
  let matched = false;
  let undecided = hasKeyword(schema, 'patternProperties') && patterns === undefined;
  for (const [source, sub] of Object.entries(patterns ?? {})) {
    const pattern = compileSafePattern(source);
    if (!pattern.ok) undecided = true;
    else if (pattern.regExp.test(name)) {
      matched = true;
      named.push({ schema: sub, via: 'patternProperties' });
    }
  }
  const extra = schemaAt(schema, 'additionalProperties');
  if (own === undefined && !matched && !undecided && extra !== undefined) {
    named.push({ schema: extra, via: 'additionalProperties' });
  }
  return named;
}

/**
 * Every property name some conjunct requires, with the label of the first that does, closed
 * under `dependencies` in their list form (a present property makes its dependencies required).
 */
export function requiredNames(conjuncts: readonly Conjunct[]): Map<string, string> {
  const required = new Map<string, string>();
  for (const { schema, label } of conjuncts)
    for (const name of stringsAt(schema, 'required')) if (!required.has(name)) required.set(name, label);
  let grown = true;
  while (grown) {
    grown = false;
    for (const { schema, label } of conjuncts) {
      const dependencies = hasKeyword(schema, 'dependencies') ? schema.dependencies : undefined;
      if (dependencies === null || typeof dependencies !== 'object' || Array.isArray(dependencies)) continue;
      for (const [trigger, needs] of Object.entries(dependencies)) {
        if (!required.has(trigger) || !Array.isArray(needs)) continue;
        for (const need of needs) {
          if (typeof need !== 'string' || required.has(need)) continue;
          required.set(need, label);
          grown = true;
        }
      }
    }
  }
  return required;
}

/** True when a schema admits no property beyond `properties` (additionalProperties false, no patterns). */
export function isClosed(schema: SchemaObject): boolean {
  const patterns = hasKeyword(schema, 'patternProperties') ? schema.patternProperties : undefined;
  const noPatterns =
    patterns === undefined || (isSchemaObject(patterns) && Object.keys(patterns).length === 0);
  return hasKeyword(schema, 'additionalProperties') && schema.additionalProperties === false && noPatterns;
}
