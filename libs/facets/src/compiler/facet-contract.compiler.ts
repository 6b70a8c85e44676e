import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import { contentHash, getFacetCatalog, type FacetCatalog, type FacetDefinition } from '@flex/contracts';
import { createFacetAjv } from '../safe-ajv';
import { escapePointerToken } from '../untrusted/json-path';
import { FacetContractError } from './facet-contract.error';
import { composeInstruction } from './facet-instructions';
import { facetErrors, type FacetValidationError, type PropertyCheck } from './facet-validation';
import { MergeConflict, mergeSchemas } from './schema-merge';

export type FacetDirection = 'input' | 'output';

/** Where one facet landed in a compiled schema (spec 003 §5.7 step 3). */
export interface FacetProvenance {
  readonly facet: string;
  readonly direction: FacetDirection;
  /** JSON pointer into the compiled schema: `/properties/<key>`. */
  readonly pointer: string;
}

/** One node-side contract: the facets' schemas merged into one object schema, plus a validator. */
export interface CompiledFacetSchema {
  readonly direction: FacetDirection;
  /** The facets compiled, deduplicated and sorted by name. */
  readonly facets: readonly string[];
  readonly schema: Readonly<Record<string, unknown>>;
  /** One entry per facet, sorted by facet name. */
  readonly provenance: readonly FacetProvenance[];
  /** `contentHash` (SHA-256 of RFC 8785 JSON) of `schema`. */
  readonly hash: string;
  /** The merged system instruction for these facets (spec 003 §5.7 step 4). */
  readonly instruction: string;
  /** Every way `value` breaks the contract; empty when it conforms. */
  validate(value: unknown): FacetValidationError[];
}

/** What the compiler reads from a catalog: `FacetCatalog` from `@flex/contracts` fits. */
export type FacetLookup = Pick<FacetCatalog, 'get'>;

/**
 * Compiles facet sets into contracts (spec 003 §5.7, §11 "Contract Compiler"). The facet list is
 * a set: order and repeats do not matter. Results are cached per (direction, facet set), so a
 * repeated compile is one map lookup; Ajv validators are cached per property-schema hash and
 * shared by every compiler.
 */
export class FacetContractCompiler {
  private readonly compiled = new Map<string, CompiledFacetSchema>();

  constructor(private readonly catalog: FacetLookup = getFacetCatalog()) {}

  compile(facetNames: readonly string[], direction: FacetDirection): CompiledFacetSchema {
    const names = normalize(facetNames);
    const cacheKey = `${direction}:${names.join(',')}`;
    const hit = this.compiled.get(cacheKey);
    if (hit) return hit;
    const definitions = this.resolve(names, direction);
    const { schema, provenance, owners } = assemble(definitions, direction);
    const hash = contentHash(schema);
    const properties = schema.properties as Record<string, Readonly<Record<string, unknown>>>;
    const checks: PropertyCheck[] = Object.keys(properties)
      .sort()
      .map((key) => {
        const facets = owners.get(key) as string[];
        return Object.freeze({ key, owners: facets, validate: validatorFor(properties[key], facets) });
      });
    const instruction = composeInstruction(
      direction === 'input' ? { input: definitions, output: [] } : { input: [], output: definitions },
    );
    const compiled: CompiledFacetSchema = Object.freeze({
      direction,
      facets: Object.freeze(names),
      schema,
      provenance: Object.freeze(provenance),
      hash,
      instruction,
      validate: (value: unknown) => facetErrors(value, checks),
    });
    this.compiled.set(cacheKey, compiled);
    return compiled;
  }

  /**
   * The merged instruction for a mixed facet list: a facet that flows one way only keeps its own
   * direction, a bidirectional facet takes `direction`. Only unknown facets are errors.
   */
  instructions(facetNames: readonly string[], direction: FacetDirection): string {
    const groups: { input: FacetDefinition[]; output: FacetDefinition[] } = { input: [], output: [] };
    for (const definition of this.resolve(normalize(facetNames), null)) {
      const flow = definition.metadata.directionality;
      groups[flow === 'bidirectional' ? direction : flow].push(definition);
    }
    return composeInstruction(groups);
  }

  /** The merged instruction for one node: what it reads and what it must produce (directions checked). */
  nodeInstructions(facets: Partial<Record<FacetDirection, readonly string[]>>): string {
    return composeInstruction({
      input: this.resolve(normalize(facets.input ?? []), 'input'),
      output: this.resolve(normalize(facets.output ?? []), 'output'),
    });
  }

  /** The catalog's definition of `name`, if there is one. */
  facet(name: string): FacetDefinition | undefined {
    return this.catalog.get(name);
  }

  /** Validates one facet's value on its own (whatever its direction); pointers start at `/<key>`. */
  validateFacet(name: string, value: unknown): FacetValidationError[] {
    const definition = this.resolve([name], null)[0];
    const direction = definition.metadata.directionality === 'output' ? 'output' : 'input';
    const key = definition.propertyKey ?? definition.name;
    return this.compile([name], direction).validate({ [key]: value });
  }

  private resolve(names: readonly string[], direction: FacetDirection | null): FacetDefinition[] {
    const missing = names.filter((name) => this.catalog.get(name) === undefined);
    if (missing.length > 0) {
      throw new FacetContractError('FACET_NOT_FOUND', `unknown facet(s): ${missing.join(', ')}`, missing, {
        facets: missing,
      });
    }
    const definitions = names.map((name) => this.catalog.get(name) as FacetDefinition);
    if (direction === null) return definitions;
    const wrong = definitions.filter(
      (d) => d.metadata.directionality !== 'bidirectional' && d.metadata.directionality !== direction,
    );
    if (wrong.length > 0) {
      const facets = wrong.map((d) => d.name);
      const directionality = Object.fromEntries(wrong.map((d) => [d.name, d.metadata.directionality]));
      throw new FacetContractError(
        'DIRECTION_MISMATCH',
        `facet(s) cannot be used as ${direction}: ${facets.join(', ')}`,
        facets,
        {
          direction,
          directionality,
        },
      );
    }
    return definitions;
  }
}

// One validator per property schema, shared by every compiler and keyed by the schema's hash:
// a new facet set only compiles what no earlier set had (Ajv code generation costs milliseconds).
// Bounded: these schemas come from catalog facets, never from callers.
const validators = new Map<string, ValidateFunction>();
let facetAjv: Ajv | undefined;

function validatorFor(
  schema: Readonly<Record<string, unknown>>,
  facets: readonly string[],
): ValidateFunction {
  const hash = contentHash(schema);
  const cached = validators.get(hash);
  if (cached) return cached;
  facetAjv ??= createFacetAjv();
  let validate: ValidateFunction;
  try {
    validate = facetAjv.compile(schema);
  } catch (error) {
    const reason = (error as Error).message;
    throw new FacetContractError('INVALID_FACET_SCHEMA', `facet schema does not compile: ${reason}`, facets, {
      reason,
    });
  }
  validators.set(hash, validate);
  return validate;
}

function normalize(names: readonly string[]): string[] {
  return [...new Set(names)].sort();
}

interface Assembled {
  schema: Readonly<Record<string, unknown>>;
  provenance: FacetProvenance[];
  owners: Map<string, string[]>;
}

/** Step 3 of spec 003 §5.7: one object property per key, every key required, nothing else allowed. */
function assemble(definitions: readonly FacetDefinition[], direction: FacetDirection): Assembled {
  const properties: Record<string, Readonly<Record<string, unknown>>> = {};
  const owners = new Map<string, string[]>();
  const provenance: FacetProvenance[] = [];
  for (const definition of definitions) {
    const key = definition.propertyKey ?? definition.name;
    const pointer = `/properties/${escapePointerToken(key)}`;
    const previous = properties[key];
    properties[key] =
      previous === undefined
        ? definition.schema
        : mergeInto(previous, definition, owners.get(key) ?? [], key, pointer);
    owners.set(key, [...(owners.get(key) ?? []), definition.name]);
    provenance.push(Object.freeze({ facet: definition.name, direction, pointer }));
  }
  const schema = deepFreeze({
    type: 'object',
    properties,
    required: Object.keys(properties).sort(),
    additionalProperties: false,
  });
  return { schema, provenance, owners };
}

function mergeInto(
  previous: Readonly<Record<string, unknown>>,
  definition: FacetDefinition,
  earlier: readonly string[],
  propertyKey: string,
  pointer: string,
): Readonly<Record<string, unknown>> {
  try {
    return mergeSchemas(previous, definition.schema, pointer);
  } catch (error) {
    if (!(error instanceof MergeConflict)) throw error;
    const facets = [...earlier, definition.name];
    throw new FacetContractError(
      error.code,
      `facets ${facets.join(', ')} share key "${propertyKey}" but ${error.message}`,
      facets,
      {
        propertyKey,
        pointer: error.pointer,
        keyword: error.keyword,
      },
    );
  }
}

/** Freezes `value` and all it reaches (a frozen object is taken to be frozen all the way down). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}
