import { canonicalJson, type PlanNode } from '@flex/contracts';
import { compileUntrustedSchema, defaultFacetCompiler } from '@flex/facets';
import { conflictsOf } from '../schema/conflicts';
import { satisfiability } from '../schema/satisfiability';
import type { Finding, JsonSchema, Verdict } from '../verdict';
import type { SchemaObject } from './caller-schema';
import { implies } from './implication';
import { facetForKey, keyOfFacet } from './output-sources';

type Result = { verdict: Verdict; findings: Finding[] };

/** The schema a facet's value must satisfy as a node output (the catalog's, compiled). */
export function facetSchemaOf(facet: string): JsonSchema | undefined {
  try {
    const compiled = defaultFacetCompiler().compile([facet], 'output');
    return (compiled.schema.properties as Record<string, JsonSchema>)[keyOfFacet(facet)];
  } catch {
    return undefined; // an unknown facet or one that cannot be an output: the structural checks report it
  }
}

/**
 * One producing node against the caller's schema for `key`: refuted when facet ∧ caller admits no
 * value; proven when the node carries `expected` as its binding (so the executor enforces it) and
 * facet ∧ binding admits a value; unknown otherwise.
 */
export function proveAgainst(
  node: PlanNode,
  key: string,
  pointer: string,
  caller: SchemaObject | undefined,
  expected: SchemaObject | undefined,
): Result {
  const facet = facetForKey(node, key);
  const schema = facet === undefined ? undefined : facetSchemaOf(facet);
  if (facet === undefined || schema === undefined) {
    return {
      verdict: 'unknown',
      findings: [{ pointer, keywords: [], message: `${node.id} has no output contract for ${key}` }],
    };
  }
  if (caller) {
    const conflicts = conflictsOf([schema, caller], pointer);
    if (conflicts.length)
      return {
        verdict: 'refuted',
        findings: conflicts.map((f) => ({ ...f, message: `${node.id} (${facet}): ${f.message}` })),
      };
  }
  const bound = node.bindings?.outputs?.[facet];
  if (expected === undefined)
    return bound === undefined ? sat([schema], pointer) : sat([schema, bound], pointer);
  if (
    bound === undefined &&
    caller !== undefined &&
    canonicalJson(caller) === canonicalJson(expected) &&
    implies(schema, caller)
  ) {
    return sat([schema], pointer); // the facet alone already guarantees the caller's fragment
  }
  if (bound === undefined || canonicalJson(bound) !== canonicalJson(expected)) {
    const message = `${node.id}'s contract does not carry the caller's schema for ${key}; its output is checked at run time`;
    return { verdict: 'unknown', findings: [{ pointer, keywords: ['bindings'], message }] };
  }
  return sat([schema, bound], pointer);
}

function sat(schemas: readonly JsonSchema[], pointer: string): Result {
  const result = satisfiability(schemas);
  return {
    verdict: result.verdict,
    findings: result.findings.map((f) => ({ ...f, pointer: pointer + f.pointer })),
  };
}

/** A value the envelope supplies as it is: valid against the caller's fragment or not. */
export function proveValue(value: unknown, fragment: SchemaObject | undefined, pointer: string): Result {
  if (!fragment) return { verdict: 'proven', findings: [] };
  try {
    const errors = compileUntrustedSchema(fragment)(value);
    if (errors.length === 0) return { verdict: 'proven', findings: [] };
    const findings = errors.map((e) => ({
      pointer: pointer + e.pointer,
      keywords: [e.keyword],
      message: `the envelope supplies it, and ${e.message}`,
    }));
    return { verdict: 'refuted', findings };
  } catch {
    return {
      verdict: 'unknown',
      findings: [{ pointer, keywords: [], message: 'the caller schema for it does not compile on its own' }],
    };
  }
}
