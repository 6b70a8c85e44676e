import type { ValidateFunction } from 'ajv';
import { escapePointerToken } from '../untrusted/json-path';
import { toValidationError, validationErrors } from '../untrusted/untrusted-schema';

/**
 * One way a value breaks a compiled facet contract. `facet` owns the failing property (the first
 * by name when several facets share its key; `''` when no facet does, as for an extra key or a
 * payload that is not an object); `pointer` is a JSON pointer into the validated value.
 */
export interface FacetValidationError {
  readonly facet: string;
  readonly pointer: string;
  readonly keyword: string;
  readonly message: string;
}

/** One property of a compiled contract: its key, its validator, and the facets that own it. */
export interface PropertyCheck {
  readonly key: string;
  readonly owners: readonly string[];
  readonly validate: ValidateFunction;
}

/**
 * Validates against `{ type: object, properties, required: all, additionalProperties: false }`:
 * the envelope keywords by hand, each property with its own (shared, cached) validator. Errors
 * come as Ajv would report them with `allErrors`, each naming the facet it falls under.
 */
export function facetErrors(value: unknown, checks: readonly PropertyCheck[]): FacetValidationError[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return [{ facet: '', pointer: '', keyword: 'type', message: 'must be object' }];
  }
  const record = value as Record<string, unknown>;
  const known = new Set(checks.map((c) => c.key));
  const errors: FacetValidationError[] = [];
  for (const { key, owners } of checks) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) {
      errors.push({
        facet: owners[0],
        pointer: `/${escapePointerToken(key)}`,
        keyword: 'required',
        message: `must have required property '${key}'`,
      });
    }
  }
  for (const key of Object.keys(record)) {
    if (!known.has(key)) {
      errors.push({
        facet: '',
        pointer: `/${escapePointerToken(key)}`,
        keyword: 'additionalProperties',
        message: 'must NOT have additional properties',
      });
    }
  }
  for (const { key, owners, validate } of checks) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
    // A throw on hostile data (a non-function `toString`, say) is one `unvalidatable` error at the key.
    for (const error of validationErrors(validate, record[key])) {
      const { pointer, keyword, message } = toValidationError(error);
      errors.push({ facet: owners[0], pointer: `/${escapePointerToken(key)}${pointer}`, keyword, message });
    }
  }
  return errors;
}
