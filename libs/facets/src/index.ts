export { createSafeAjv } from './safe-ajv';
export {
  compileSafePattern,
  MAX_PATTERN_PROGRAM_SIZE,
  type SafePattern,
  type SafePatternIssueCode,
} from './regex/safe-regexp';
export { MAX_PATTERN_LENGTH } from './regex/ecma-pattern';
export {
  UNTRUSTED_SCHEMA_LIMITS,
  UntrustedSchemaError,
  type SchemaIssue,
  type SchemaIssueCode,
  type UntrustedSchemaLimits,
} from './untrusted/schema-issue';
export {
  checkUntrustedSchema,
  compileUntrustedSchema,
  type CompiledUntrustedSchema,
  type UntrustedValidationError,
} from './untrusted/untrusted-schema';
export {
  FacetContractCompiler,
  type CompiledFacetSchema,
  type FacetDirection,
  type FacetLookup,
  type FacetProvenance,
} from './compiler/facet-contract.compiler';
export { FacetContractError, type FacetContractErrorCode } from './compiler/facet-contract.error';
export type { FacetValidationError } from './compiler/facet-validation';
export {
  defaultFacetCompiler,
  instructionsFor,
  nodeInstructionsFor,
  validateFacetInputs,
  validateFacetOutputs,
} from './compiler/default-compiler';
export { envelopeFacets, type EnvelopeFacetIssue, type EnvelopeFacets } from './envelope/envelope-facets';
