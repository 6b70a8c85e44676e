import type { JsonSchema } from '../verdict';

/** A JSON Schema in its object form. */
export type SchemaObject = Readonly<Record<string, unknown>>;

/** True for a JSON object (not an array, not null). */
export function isSchemaObject(value: unknown): value is SchemaObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** True for something that can stand as a subschema: an object or a boolean. */
export function isJsonSchema(value: unknown): value is JsonSchema {
  return typeof value === 'boolean' || isSchemaObject(value);
}

/** Own-property test: a schema's `constructor` or `__proto__` keys are data, not inherited members. */
export function hasKeyword(schema: SchemaObject, keyword: string): boolean {
  return Object.prototype.hasOwnProperty.call(schema, keyword);
}

/** The keyword's value when it is a finite number. */
export function numberAt(schema: SchemaObject, keyword: string): number | undefined {
  const value = hasKeyword(schema, keyword) ? schema[keyword] : undefined;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The keyword's value when it is a subschema (`items`, `contains`, `not`, …). */
export function schemaAt(schema: SchemaObject, keyword: string): JsonSchema | undefined {
  const value = hasKeyword(schema, keyword) ? schema[keyword] : undefined;
  return isJsonSchema(value) ? value : undefined;
}

/** The keyword's value when it is a list of subschemas (`anyOf`, `oneOf`, tuple `items`). */
export function schemaListAt(schema: SchemaObject, keyword: string): readonly JsonSchema[] | undefined {
  const value = hasKeyword(schema, keyword) ? schema[keyword] : undefined;
  return Array.isArray(value) && value.every(isJsonSchema) ? value : undefined;
}

/** The keyword's value when it maps names to subschemas (`properties`, `patternProperties`). */
export function schemaMapAt(
  schema: SchemaObject,
  keyword: string,
): Readonly<Record<string, JsonSchema>> | undefined {
  const value = hasKeyword(schema, keyword) ? schema[keyword] : undefined;
  if (!isSchemaObject(value) || !Object.values(value).every(isJsonSchema)) return undefined;
  return value as Readonly<Record<string, JsonSchema>>;
}

/** The string entries of a list-valued keyword (`required`); anything else counts as absent. */
export function stringsAt(schema: SchemaObject, keyword: string): readonly string[] {
  const value = hasKeyword(schema, keyword) ? schema[keyword] : undefined;
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The subschema `map` holds for `name`, if it holds one as its own property. */
export function entryOf(
  map: Readonly<Record<string, JsonSchema>> | undefined,
  name: string,
): JsonSchema | undefined {
  return map !== undefined && Object.prototype.hasOwnProperty.call(map, name) ? map[name] : undefined;
}

/** A copy of `schema` without `keyword`. */
export function withoutKeyword(schema: SchemaObject, keyword: string): SchemaObject {
  const { [keyword]: _dropped, ...rest } = schema;
  return rest;
}
