import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { CanonicalJsonError, contentHash } from '@flex/contracts';
import { createSafeAjv } from '../safe-ajv';
import { escapePointerToken, formatPath, joinPath, pointerSegments, type PathSegment } from './json-path';
import {
  UNTRUSTED_SCHEMA_LIMITS,
  UntrustedSchemaError,
  type SchemaIssue,
  type UntrustedSchemaLimits,
} from './schema-issue';
import { checkSchemaKeywords } from './schema-keywords';
import { checkRefCycles } from './schema-ref-cycles';
import { checkSchemaShape } from './schema-shape';

/** One way a value fails a caller's schema; `pointer` is a JSON pointer into the value. */
export interface UntrustedValidationError {
  readonly pointer: string;
  readonly keyword: string;
  readonly message: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/**
 * A caller's schema that passed every check, compiled once and shared by content hash. Calling
 * it (or its `validate`) returns the value's errors: empty when the value conforms. Validation
 * stops at the first failure (`allErrors: false`).
 */
export interface CompiledUntrustedSchema {
  (value: unknown): UntrustedValidationError[];
  readonly hash: string;
  readonly schema: unknown;
  validate(value: unknown): UntrustedValidationError[];
}

const CACHE_LIMIT = 256;
// Ajv keeps every compiled pattern and format in one scope per instance: start a fresh instance
// now and then so a stream of distinct caller schemas cannot grow it without bound.
const COMPILES_PER_INSTANCE = 256;
const cache = new Map<string, CompiledUntrustedSchema>();
let ajv: Ajv | null = null;
let compiles = 0;

/**
 * Every reason to refuse `schema` as an untrusted contract, each with a JSON path into the
 * envelope (`path` is where the schema sits). Empty means `compileUntrustedSchema` will accept it.
 */
export function checkUntrustedSchema(
  schema: unknown,
  path = 'outputContract.schema',
  limits: UntrustedSchemaLimits = UNTRUSTED_SCHEMA_LIMITS,
): SchemaIssue[] {
  return admit(schema, path, limits).issues;
}

/** The compiled validator for `schema`, cached by its content hash; throws `UntrustedSchemaError`. */
export function compileUntrustedSchema(
  schema: unknown,
  path = 'outputContract.schema',
  limits: UntrustedSchemaLimits = UNTRUSTED_SCHEMA_LIMITS,
): CompiledUntrustedSchema {
  const { issues, compiled } = admit(schema, path, limits);
  if (!compiled) throw new UntrustedSchemaError(issues);
  return compiled;
}

function admit(
  schema: unknown,
  base: string,
  limits: UntrustedSchemaLimits,
): { issues: SchemaIssue[]; compiled?: CompiledUntrustedSchema } {
  const shape = checkSchemaShape(schema, base, limits);
  if (shape.length > 0) return { issues: shape };
  let hash: string;
  try {
    hash = contentHash(schema);
  } catch (error) {
    if (!(error instanceof CanonicalJsonError)) throw error;
    return { issues: [{ path: joinPath(base, error.path), code: 'NOT_JSON', message: error.message }] };
  }
  const hit = cache.get(hash);
  if (hit) {
    cache.delete(hash); // least recently used goes first
    cache.set(hash, hit);
    return { issues: [], compiled: hit };
  }
  const instance = currentAjv();
  const keywordIssues = checkSchemaKeywords(schema, base, instance);
  if (keywordIssues.length > 0) return { issues: keywordIssues };
  const cycles = checkRefCycles(schema, base);
  if (cycles.length > 0) return { issues: cycles };
  const metaIssues = checkAgainstMetaSchema(instance, schema, base);
  if (metaIssues.length > 0) return { issues: metaIssues };
  let validate: ValidateFunction;
  const based = withBase(schema);
  try {
    validate = instance.compile(based as object);
  } catch (error) {
    return { issues: [compileIssue(error as Error, schema, base)] };
  } finally {
    if (typeof based === 'object') instance.removeSchema(based as object);
  }
  const compiled = wrap(hash, schema, validate);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(hash, compiled);
  return { issues: [], compiled };
}

/** Where a caller's schema without an `$id` is taken to live (never fetched, never registered). */
const CONTRACT_BASE = 'https://flex.invalid/contract.json';

/**
 * The schema with a base URI when it has none. With `addUsedSchema: false` Ajv registers no root, so
 * a bare `$ref: "#"` (the root itself: a list's `next`, a tree's `children`) "can't resolve"
 * without one; `#/...` pointers resolve either way. Only local `$ref`s pass the keyword check, so
 * the base never reaches anything outside the schema.
 */
function withBase(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || '$id' in schema)
    return schema;
  return { $id: CONTRACT_BASE, ...schema };
}

function currentAjv(): Ajv {
  if (!ajv || compiles >= COMPILES_PER_INSTANCE) {
    ajv = createSafeAjv();
    compiles = 0;
  }
  compiles += 1;
  return ajv;
}

function checkAgainstMetaSchema(instance: Ajv, schema: unknown, base: string): SchemaIssue[] {
  try {
    if (instance.validateSchema(schema as object) === true) return [];
  } catch (error) {
    return [
      { path: formatPath(base, ['$schema']), code: 'INVALID_SCHEMA', message: (error as Error).message },
    ];
  }
  return (instance.errors ?? []).map((e) => ({
    path: formatPath(base, pointerSegments(e.instancePath, schema)),
    code: 'INVALID_SCHEMA' as const,
    message: `${e.message ?? e.keyword}`,
  }));
}

function compileIssue(error: Error, schema: unknown, base: string): SchemaIssue {
  const ref = /can't resolve reference (\S+) from/.exec(error.message)?.[1];
  if (ref !== undefined) {
    const where = findRef(schema, ref);
    return {
      path: formatPath(base, where ?? []),
      code: ref.startsWith('#') ? 'COMPILE_FAILED' : 'REMOTE_REF',
      message: error.message,
    };
  }
  // Ajv names the subschema `at "#/…"`, or `at path "#/…"` for an unknown format: the issue is then
  // that subschema's `format`.
  const at = /at (?:path )?"(#[^"]*)"/.exec(error.message)?.[1] ?? '#';
  const keyword = error.message.startsWith('unknown format ') ? ['format'] : [];
  return {
    path: formatPath(base, [...pointerSegments(at, schema), ...keyword]),
    code: 'COMPILE_FAILED',
    message: error.message,
  };
}

/** Path of the first `$ref` whose value is `ref` (the schema is already known to be small). */
function findRef(node: unknown, ref: string, path: PathSegment[] = []): PathSegment[] | null {
  if (node === null || typeof node !== 'object') return null;
  if (!Array.isArray(node) && (node as Record<string, unknown>).$ref === ref) return [...path, '$ref'];
  for (const [key, child] of Object.entries(node)) {
    const found = findRef(child, ref, [...path, Array.isArray(node) ? Number(key) : key]);
    if (found) return found;
  }
  return null;
}

/** The keyword of the one error reported when Ajv throws on a value instead of judging it. */
export const UNVALIDATABLE = 'unvalidatable';

/**
 * Ajv's errors for `value`, never a throw. Ajv can throw on hostile data (its deep equality, used
 * by `enum`, `const` and `uniqueItems`, calls the data's own `valueOf`/`toString`; a recursive
 * schema over deep data overflows the stack): the value then fails closed with one error at the root.
 */
export function validationErrors(validate: ValidateFunction, value: unknown): ErrorObject[] {
  try {
    return validate(value) === true ? [] : [...(validate.errors ?? [])];
  } catch (error) {
    const cause = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return [
      {
        keyword: UNVALIDATABLE,
        instancePath: '',
        schemaPath: '#',
        params: { cause },
        message: `the value cannot be validated, so it is treated as invalid (${cause})`,
      },
    ];
  }
}

function wrap(hash: string, schema: unknown, validate: ValidateFunction): CompiledUntrustedSchema {
  const run = (value: unknown): UntrustedValidationError[] =>
    validationErrors(validate, value).map(toValidationError);
  // The schema is shared through the cache: no caller may change it under another.
  return Object.freeze(Object.assign(run, { hash, schema: structuredClone(schema), validate: run }));
}

export function toValidationError(e: ErrorObject): UntrustedValidationError {
  const child =
    e.keyword === 'required'
      ? e.params.missingProperty
      : e.keyword === 'additionalProperties'
        ? e.params.additionalProperty
        : undefined;
  const pointer =
    typeof child === 'string' ? `${e.instancePath}/${escapePointerToken(child)}` : e.instancePath;
  return { pointer, keyword: e.keyword, message: e.message ?? e.keyword, params: e.params };
}
