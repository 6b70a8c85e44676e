import type { PlanNodeKind, TaskEnvelope } from '@flex/contracts';
import { envelopeFacets } from '@flex/facets';
import { chooseCount, contractLength, COUNT_KNOBS, requestedCount } from '@flex/proof';

/** The knobs a rule-based plan is built with: the envelope's policies, revised by diagnostics. */
export interface PlanShape {
  /** Parallel variants; above 1 the plan gets one branch node per variant. */
  variantCount: number;
  requiredKinds: PlanNodeKind[];
  forbiddenKinds: PlanNodeKind[];
  require: string[];
  forbid: string[];
  prefer: string[];
  avoid: string[];
  /** Facets to produce beyond what the contract asks for (a diagnostic named them). */
  extraTargets: string[];
  /** Constraint ids a diagnostic said no node enforces. */
  enforce: string[];
}

/** The shape the envelope alone asks for: topology, selection and a variant count. */
export function shapeFromEnvelope(envelope: TaskEnvelope): PlanShape {
  const planner = envelope.policies?.planner ?? {};
  const topology = planner.topology ?? {};
  const selection = planner.selection ?? {};
  return {
    variantCount: contractVariantCount(envelope) ?? topology.variantCount ?? inputVariantCount(envelope) ?? 1,
    requiredKinds: [...(topology.requiredKinds ?? [])],
    forbiddenKinds: [...(topology.forbiddenKinds ?? [])],
    require: [...(selection.require ?? [])],
    forbid: [...(selection.forbid ?? [])],
    prefer: [...(selection.prefer ?? [])],
    avoid: [...(selection.avoid ?? [])],
    extraTargets: [],
    enforce: [],
  };
}

/**
 * The variant count the contract allows, nearest to what the caller asked for (policies, inputs):
 * the contract binds the plan, so a schema asking for exactly 3 variants gets 3 whatever the
 * objective text or a stale policy says.
 */
function contractVariantCount(envelope: TaskEnvelope): number | undefined {
  const properties =
    (envelope.outputContract.schema as { properties?: Record<string, unknown> }).properties ?? {};
  const key = Object.keys(COUNT_KNOBS).find((k) => k in properties);
  if (key === undefined) return undefined;
  const requested = requestedCount(envelope, envelopeFacets(envelope).values);
  return chooseCount(contractLength(envelope, key, properties[key]), requested);
}

/** A variant count the caller put in the inputs (`inputs.variantCount`), when it is a sane integer. */
function inputVariantCount(envelope: TaskEnvelope): number | undefined {
  const value = envelope.inputs?.variantCount;
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 50
    ? value
    : undefined;
}

/** The caller schema's item bounds for an array property (the variants), if it declares any. */
export function arrayBounds(envelope: TaskEnvelope, property: string): { min?: number; max?: number } {
  const props = (
    envelope.outputContract.schema as {
      properties?: Record<string, { minItems?: unknown; maxItems?: unknown }>;
    }
  ).properties;
  const schema = props?.[property];
  const num = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
  return { min: num(schema?.minItems), max: num(schema?.maxItems) };
}
