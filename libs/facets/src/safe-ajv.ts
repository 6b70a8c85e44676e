import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { safeRegExpEngine } from './regex/safe-regexp';

/**
 * An Ajv for schemas Flex did not write (a caller's `outputContract.schema`).
 *
 * - `strict`: unknown keywords, ignored keywords and unknown formats fail compilation. Two of
 *   Ajv's strict rules are lint, not safety, and reject valid schemas callers really send
 *   (`properties` without `type: "object"`, `required` inside an `anyOf` branch): they are off.
 * - no `$data` and no `loadSchema`: a schema cannot take keyword values from the data, and a
 *   `$ref` Ajv cannot resolve locally fails compilation instead of being fetched.
 * - `allErrors: false`: validation stops at the first failure, so its cost stays bounded.
 * - `pattern` / `patternProperties` run on RE2 (linear time) through `code.regExp`, and
 *   `allowMatchingProperties` is on because Ajv's check behind it runs each pattern on the
 *   native backtracking engine at compile time.
 * - `addUsedSchema: false`: a schema's `$id` is not registered, so one caller's schema can
 *   neither collide with nor `$ref` another's.
 */
export function createSafeAjv(): Ajv {
  return buildAjv(false);
}

/** The same guarantees with every error reported: for Flex's own facet schemas only. */
export function createFacetAjv(): Ajv {
  return buildAjv(true);
}

function buildAjv(allErrors: boolean): Ajv {
  const ajv = new Ajv({
    strict: true,
    strictTypes: false,
    strictRequired: false,
    allowUnionTypes: true,
    allowMatchingProperties: true,
    $data: false,
    allErrors,
    addUsedSchema: false,
    ownProperties: true,
    code: { regExp: safeRegExpEngine },
  });
  addFormats(ajv);
  return ajv;
}
