import { compileUntrustedSchema, UntrustedSchemaError } from '@flex/facets';
import type { JsonSchema } from '../verdict';
import { valueKey } from '../logic/value-key';
import { kindOfValue, kindsOfSchema } from './kinds';
import { hasKeyword, isSchemaObject, type SchemaObject } from './schema-read';

/** Why a value fails a schema: the first failing keyword and where, as a JSON pointer into the value. */
export interface Rejection {
  readonly keyword: string;
  readonly pointer: string;
  readonly message: string;
  /** Ajv threw instead of answering (its deep equality calls a value's own `toString` key, say). */
  readonly thrown?: true;
}

/** A compiled schema: the value's first failure, or `undefined` when the value conforms. */
export type SchemaCheck = (value: unknown) => Rejection | undefined;

const compiled = new WeakMap<object, SchemaCheck | null>();
const acceptAll: SchemaCheck = () => undefined;
const rejectAll: SchemaCheck = () => ({
  keyword: 'false',
  pointer: '',
  message: 'the schema false accepts no value',
});

/**
 * The schema compiled with the Ajv Flex validates untrusted schemas with, so a check here means
 * what it means at runtime. `undefined` when it cannot be compiled on its own: Ajv refuses it, or
 * it holds a `$ref`, which out of its document would point somewhere else (or nowhere).
 */
export function checkOf(schema: JsonSchema): SchemaCheck | undefined {
  if (typeof schema === 'boolean') return schema ? acceptAll : rejectAll;
  const hit = compiled.get(schema);
  if (hit !== undefined) return hit ?? undefined;
  const check = compile(schema);
  compiled.set(schema, check ?? null);
  return check;
}

function compile(schema: SchemaObject): SchemaCheck | undefined {
  if (mentionsRef(schema)) return undefined;
  try {
    const validate = compileUntrustedSchema(schema, 'schema');
    return (value) => {
      try {
        const [first] = validate(value);
        return first && { keyword: first.keyword, pointer: first.pointer, message: first.message };
      } catch (error) {
        return {
          keyword: 'error',
          pointer: '',
          message: `the validator threw: ${(error as Error).message}`,
          thrown: true,
        };
      }
    };
  } catch (error) {
    if (error instanceof UntrustedSchemaError) return undefined;
    throw error;
  }
}

/** True when a `$ref` key sits anywhere in the schema. */
export function mentionsRef(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentionsRef);
  if (!isSchemaObject(node)) return false;
  return Object.prototype.hasOwnProperty.call(node, '$ref') || Object.values(node).some(mentionsRef);
}

/**
 * Why `schema` certainly rejects `value`, or `undefined` when it may accept it. Ajv decides when
 * the schema compiles (a value Ajv throws on is not counted as rejected: JSON Schema may accept
 * it); otherwise only `type`, `const` and `enum` are read, so a rejection is never claimed
 * without a keyword that makes it.
 */
export function rejectionOf(value: unknown, schema: JsonSchema): Rejection | undefined {
  const failure = failureOf(value, schema);
  return failure?.thrown ? undefined : failure;
}

/**
 * Why `value` is not known to pass `schema`: as {@link rejectionOf}, except that a value Ajv
 * throws on fails. For picking values, where only a clean pass will do.
 */
export function failureOf(value: unknown, schema: JsonSchema): Rejection | undefined {
  const check = checkOf(schema);
  if (check) return check(value);
  return isSchemaObject(schema) ? structuralRejection(value, schema) : undefined;
}

function structuralRejection(value: unknown, schema: SchemaObject): Rejection | undefined {
  const kind = kindOfValue(value);
  if (kind === undefined || !kindsOfSchema(schema).has(kind)) {
    return { keyword: 'type', pointer: '', message: 'wrong type' };
  }
  const key = valueKey(value);
  if (hasKeyword(schema, 'const') && valueKey(schema.const) !== key) {
    return { keyword: 'const', pointer: '', message: 'not the const' };
  }
  const values = hasKeyword(schema, 'enum') ? schema.enum : undefined;
  if (Array.isArray(values) && !values.some((v) => valueKey(v) === key)) {
    return { keyword: 'enum', pointer: '', message: 'not in the enum' };
  }
  return undefined;
}
