import {
  FacetContractCompiler,
  type CompiledFacetSchema,
  type FacetDirection,
} from './facet-contract.compiler';
import { FacetContractError } from './facet-contract.error';
import type { FacetValidationError } from './facet-validation';

let shared: FacetContractCompiler | undefined;

/** One compiler over `getFacetCatalog()`, shared so its caches are too. */
export function defaultFacetCompiler(): FacetContractCompiler {
  shared ??= new FacetContractCompiler();
  return shared;
}

/**
 * The merged system instruction (spec 003 §5.7 step 4) for `facetNames`: input-only facets are
 * described as inputs, output-only ones as outputs, bidirectional ones as `direction`.
 */
export function instructionsFor(facetNames: readonly string[], direction: FacetDirection): string {
  return defaultFacetCompiler().instructions(facetNames, direction);
}

/** The merged instruction for a node that reads `input` facets and produces `output` facets. */
export function nodeInstructionsFor(facets: Partial<Record<FacetDirection, readonly string[]>>): string {
  return defaultFacetCompiler().nodeInstructions(facets);
}

/** Checks a node's input payload against its compiled input contract. */
export function validateFacetInputs(compiled: CompiledFacetSchema, value: unknown): FacetValidationError[] {
  return validateAs(compiled, 'input', value);
}

/** Checks a node's output against its compiled output contract. */
export function validateFacetOutputs(compiled: CompiledFacetSchema, value: unknown): FacetValidationError[] {
  return validateAs(compiled, 'output', value);
}

function validateAs(
  compiled: CompiledFacetSchema,
  direction: FacetDirection,
  value: unknown,
): FacetValidationError[] {
  if (compiled.direction !== direction) {
    const message = `contract was compiled for ${compiled.direction}, not ${direction}`;
    throw new FacetContractError('DIRECTION_MISMATCH', message, compiled.facets, {
      expected: direction,
      actual: compiled.direction,
    });
  }
  return compiled.validate(value);
}
