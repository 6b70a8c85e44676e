import type { Finding, JsonSchema } from '../verdict';
import { ANY_ITEM, labelSchemas, owner, type Labelled } from './conjunct';
import { checkOf, mentionsRef, type Rejection, type SchemaCheck } from './schema-check';
import { isSchemaObject } from './schema-read';
import { candidateValues } from './witness-build';

/** A value verified against every schema, or the findings that say why none was found. */
export type WitnessAttempt =
  { readonly found: true; readonly value: unknown } | { readonly found: false; readonly findings: Finding[] };

// Nested conjunctions one witness search may build candidates for (unions multiply them).
const MAX_STEPS = 400;

// Keywords the witness builder does not aim at: a failed attempt names those present.
const NOT_BUILT_FOR = [
  'pattern',
  'format',
  'multipleOf',
  'not',
  'if',
  'then',
  'else',
  'anyOf',
  'oneOf',
  'propertyNames',
  'patternProperties',
  'dependencies',
  'maxProperties',
  'uniqueItems',
  'contains',
  'additionalItems',
  'formatMinimum',
  'formatMaximum',
  'formatExclusiveMinimum',
  'formatExclusiveMaximum',
  '$ref',
];

/** A value satisfying every schema, verified with Ajv; `undefined` when none was found. */
export function witnessOf(schemas: readonly JsonSchema[]): { value: unknown } | undefined {
  const attempt = attemptWitness(schemas);
  return attempt.found ? { value: attempt.value } : undefined;
}

/**
 * Builds candidates (see `candidateValues`) and returns the first that every schema's compiled
 * validator accepts. Without one, findings say what stood in the way: a schema that cannot be
 * compiled on its own, the keyword the best candidate failed, or the keywords not aimed at.
 */
export function attemptWitness(
  schemas: readonly JsonSchema[],
  pointer = '',
  labels?: readonly string[],
): WitnessAttempt {
  const parts = labelSchemas(schemas, labels);
  const checked = parts.map((part) => ({ part, check: checkOf(part.schema) }));
  const ready = checked.flatMap(({ part, check }) => (check === undefined ? [] : [{ part, check }]));
  if (ready.length < parts.length) {
    const findings = checked
      .filter((c) => c.check === undefined)
      .map((c) => uncompiledFinding(c.part, pointer));
    return { found: false, findings };
  }
  let miss: Miss | undefined;
  for (const value of candidateValues(parts, 1, 0, { left: MAX_STEPS })) {
    const failure = firstFailure(value, ready);
    if (failure === undefined) return { found: true, value };
    miss ??= failure;
  }
  return {
    found: false,
    findings: [miss === undefined ? notBuiltFinding(schemas, pointer) : missFinding(miss, pointer)],
  };
}

interface Miss {
  readonly value: unknown;
  readonly rejection: Rejection;
  readonly label: string;
}

function firstFailure(
  value: unknown,
  ready: ReadonlyArray<{ part: Labelled; check: SchemaCheck }>,
): Miss | undefined {
  for (const { part, check } of ready) {
    const rejection = check(value);
    if (rejection !== undefined) return { value, rejection, label: part.label };
  }
  return undefined;
}

function missFinding(miss: Miss, pointer: string): Finding {
  const failed = `${owner(miss.label)} ${miss.rejection.keyword} (${miss.rejection.message})`;
  const message = `no value was found for every schema: the best candidate fails ${failed}`;
  return {
    pointer: pointer + starred(miss.rejection.pointer, miss.value),
    keywords: [miss.rejection.keyword],
    message: `${message}; runtime validation decides`,
  };
}

function uncompiledFinding(part: Labelled, pointer: string): Finding {
  const ref = mentionsRef(part.schema);
  const why = ref ? ' (its $ref would point elsewhere out of its document)' : '';
  return {
    pointer,
    keywords: ref ? ['$ref'] : [],
    message: `${owner(part.label)} schema cannot be compiled on its own${why}; runtime validation decides`,
  };
}

function notBuiltFinding(schemas: readonly JsonSchema[], pointer: string): Finding {
  const present = NOT_BUILT_FOR.filter((keyword) => schemas.some((schema) => mentions(schema, keyword)));
  const which = present.length > 0 ? ` (keywords not decided statically: ${present.join(', ')})` : '';
  return {
    pointer,
    keywords: present,
    message: `no candidate value could be built for every schema${which}; runtime validation decides`,
  };
}

function mentions(node: unknown, keyword: string): boolean {
  if (Array.isArray(node)) return node.some((child) => mentions(child, keyword));
  if (!isSchemaObject(node)) return false;
  return (
    Object.prototype.hasOwnProperty.call(node, keyword) ||
    Object.values(node).some((child) => mentions(child, keyword))
  );
}

/** An Ajv pointer into `value` with each array index written `*`, the convention of findings. */
export function starred(pointer: string, value: unknown): string {
  let node = value;
  let out = '';
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    out += `/${Array.isArray(node) ? ANY_ITEM : token}`;
    node = isSchemaObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return out;
}
