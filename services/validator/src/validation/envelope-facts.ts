import { contentHash, getFacetCatalog, type PlanDiagnostic, type TaskEnvelope } from '@flex/contracts';
import { envelopeFacets } from '@flex/facets';
import { checkCallerSchema } from './structural.checks';

/** What the validator needs from an envelope, derived once per envelope object (the same for every draft of a run). */
export interface EnvelopeFacts {
  /** Facet values the envelope supplies by itself. */
  readonly values: Readonly<Record<string, unknown>>;
  /** Output keys the envelope supplies: facet names and their property keys. */
  readonly supplied: ReadonlySet<string>;
  /** The variant count the caller asked for, and where it came from. */
  readonly variantCount?: { value: number; source: string };
  /** Top-level array properties of the caller's schema with their item bounds. */
  readonly arrays: ReadonlyMap<string, { minItems?: number; maxItems?: number }>;
  /** Diagnostics that depend on the envelope only (the caller schema compiles). */
  readonly diagnostics: readonly PlanDiagnostic[];
}

// Same object (one fold, one bench loop) → WeakMap; same content (a run's stream loaded again for
// its next draft) → a small LRU keyed by the envelope's content hash. The facts are a pure function
// of the envelope, so either hit is exact.
const byObject = new WeakMap<TaskEnvelope, EnvelopeFacts>();
const byContent = new Map<string, EnvelopeFacts>();
const CONTENT_CACHE_LIMIT = 256;

export function envelopeFactsOf(envelope: TaskEnvelope): EnvelopeFacts {
  const hit = byObject.get(envelope);
  if (hit) return hit;
  const hash = contentHash(envelope);
  const known = byContent.get(hash);
  if (known) {
    byContent.delete(hash);
    byContent.set(hash, known);
    byObject.set(envelope, known);
    return known;
  }
  const facts = deriveFacts(envelope);
  if (byContent.size >= CONTENT_CACHE_LIMIT) byContent.delete(byContent.keys().next().value as string);
  byContent.set(hash, facts);
  byObject.set(envelope, facts);
  return facts;
}

function deriveFacts(envelope: TaskEnvelope): EnvelopeFacts {
  const catalog = getFacetCatalog();
  const supplied = envelopeFacets(envelope);
  const keys = new Set<string>();
  for (const name of Object.keys(supplied.values)) {
    keys.add(name);
    const key = catalog.get(name)?.propertyKey;
    if (key) keys.add(key);
  }
  return {
    values: supplied.values,
    supplied: keys,
    variantCount: variantCountOf(envelope, supplied.values, supplied.sources),
    arrays: arrayProperties(envelope.outputContract.schema),
    diagnostics: checkCallerSchema(envelope),
  };
}

function variantCountOf(
  envelope: TaskEnvelope,
  values: Record<string, unknown>,
  sources: Record<string, string>,
) {
  const topology = envelope.policies?.planner?.topology?.variantCount;
  if (topology !== undefined) return { value: topology, source: 'policies.planner.topology.variantCount' };
  const knobs = values.planKnobs as { variantCount?: unknown } | undefined;
  if (typeof knobs?.variantCount === 'number')
    return { value: knobs.variantCount, source: sources.planKnobs ?? 'inputs.planKnobs' };
  return undefined;
}

function arrayProperties(
  schema: Record<string, unknown>,
): Map<string, { minItems?: number; maxItems?: number }> {
  const out = new Map<string, { minItems?: number; maxItems?: number }>();
  const properties = schema.properties;
  if (!properties || typeof properties !== 'object') return out;
  for (const [key, raw] of Object.entries(properties as Record<string, unknown>)) {
    if (!raw || typeof raw !== 'object') continue;
    const property = raw as { type?: unknown; items?: unknown; minItems?: unknown; maxItems?: unknown };
    const isArray =
      property.type === 'array' ||
      (Array.isArray(property.type) && property.type.includes('array')) ||
      property.items !== undefined;
    if (!isArray) continue;
    out.set(key, {
      ...(typeof property.minItems === 'number' ? { minItems: property.minItems } : {}),
      ...(typeof property.maxItems === 'number' ? { maxItems: property.maxItems } : {}),
    });
  }
  return out;
}
