/** Stable codes of {@link FacetContractError}. */
export type FacetContractErrorCode =
  | 'FACET_NOT_FOUND'
  | 'DIRECTION_MISMATCH'
  | 'TYPE_MISMATCH'
  | 'ENUM_CONFLICT'
  | 'MERGE_UNSUPPORTED'
  | 'INVALID_FACET_SCHEMA';

/**
 * A facet set that cannot become one contract. `facets` names the facets at fault; `details`
 * says where and why (for merge conflicts: the shared property key, a JSON pointer into the
 * merged schema, the keyword). Not retryable: the same facet set always fails the same way.
 */
export class FacetContractError extends Error {
  override readonly name = 'FacetContractError';
  readonly retryable = false;

  constructor(
    readonly code: FacetContractErrorCode,
    message: string,
    readonly facets: readonly string[],
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}
