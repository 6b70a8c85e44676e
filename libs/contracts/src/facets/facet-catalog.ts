import { FacetDefinitionSchema, facetAllows, type FacetDefinition } from './facet-definition';
import { BRIEF_FACETS } from './catalog/brief-facets';
import { CREDENTIAL_FACETS } from './catalog/credential-facets';
import { QA_FACETS } from './catalog/qa-facets';
import { STRATEGY_FACETS } from './catalog/strategy-facets';

/** Stable codes of {@link FacetCatalogError}. */
export type FacetCatalogErrorCode =
  'FACET_NOT_FOUND' | 'FACET_DIRECTION_MISMATCH' | 'FACET_DUPLICATE' | 'FACET_INVALID';

/** A catalog lookup or construction failure; `facets` names the facets concerned. */
export class FacetCatalogError extends Error {
  override name = 'FacetCatalogError';
  constructor(
    readonly code: FacetCatalogErrorCode,
    message: string,
    readonly facets: readonly string[],
  ) {
    super(message);
  }
}

/**
 * The facets the planner, validator, registry and executor agree on. Names are unique; every
 * definition is validated and frozen at construction.
 */
export class FacetCatalog {
  private readonly byName: ReadonlyMap<string, FacetDefinition>;

  constructor(definitions: readonly FacetDefinition[]) {
    const byName = new Map<string, FacetDefinition>();
    for (const raw of definitions) {
      const parsed = FacetDefinitionSchema.safeParse(raw);
      const name = (raw as { name?: unknown })?.name;
      if (!parsed.success)
        throw new FacetCatalogError(
          'FACET_INVALID',
          `facet ${String(name)} is invalid: ${parsed.error.message}`,
          [String(name)],
        );
      if (byName.has(parsed.data.name))
        throw new FacetCatalogError('FACET_DUPLICATE', `facet "${parsed.data.name}" is defined twice`, [
          parsed.data.name,
        ]);
      byName.set(parsed.data.name, deepFreeze(parsed.data));
    }
    this.byName = byName;
  }

  /** The definition named `name`, or `undefined`. */
  get(name: string): FacetDefinition | undefined {
    return this.byName.get(name);
  }

  /** True when a facet named `name` exists. */
  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Every definition, in catalog order. */
  list(): FacetDefinition[] {
    return [...this.byName.values()];
  }

  /**
   * The definitions of `names`, in that order. Throws `FACET_NOT_FOUND` naming every unknown
   * facet; with `direction`, also `FACET_DIRECTION_MISMATCH` naming facets that cannot flow that way.
   */
  resolveMany(names: readonly string[], direction?: 'input' | 'output'): FacetDefinition[] {
    const missing = names.filter((name) => !this.byName.has(name));
    if (missing.length)
      throw new FacetCatalogError('FACET_NOT_FOUND', `unknown facet(s): ${missing.join(', ')}`, missing);
    const resolved = names.map((name) => this.byName.get(name) as FacetDefinition);
    if (direction) {
      const wrong = resolved.filter((d) => !facetAllows(d, direction)).map((d) => d.name);
      if (wrong.length)
        throw new FacetCatalogError(
          'FACET_DIRECTION_MISMATCH',
          `facet(s) cannot be used as ${direction}: ${wrong.join(', ')}`,
          wrong,
        );
    }
    return resolved;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}

let shared: FacetCatalog | undefined;

/**
 * The catalog of spec 003 §11 ("Facet Catalog"), in the table's order, then Flex's own `credentials`
 * (the one sensitive facet, see docs/security/secrets.md); built once and shared.
 */
export function getFacetCatalog(): FacetCatalog {
  shared ??= new FacetCatalog([...BRIEF_FACETS, ...STRATEGY_FACETS, ...QA_FACETS, ...CREDENTIAL_FACETS]);
  return shared;
}
