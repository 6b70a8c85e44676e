import { compileUntrustedSchema } from '@flex/facets';
import type { JsonSchema } from '../../verdict';

/**
 * True when Flex's untrusted-schema validator accepts `value` against `schema`. A value it throws
 * on (Ajv's deep equality calls an own `toString` key, as in `{"toString": null}`) is not valid.
 */
export function isValid(schema: JsonSchema, value: unknown): boolean {
  try {
    return compileUntrustedSchema(schema, 'schema')(value).length === 0;
  } catch {
    return false;
  }
}

/** True when every schema accepts `value`. */
export function isValidForAll(schemas: readonly JsonSchema[], value: unknown): boolean {
  return schemas.every((schema) => isValid(schema, value));
}
