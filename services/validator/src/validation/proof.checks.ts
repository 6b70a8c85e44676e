import type { ConstraintSpec, PlanDiagnostic } from '@flex/contracts';
import { constraintIdOf } from '@flex/logic';
import { ruleLength, type ContractProof, type Finding, type Obligation } from '@flex/proof';
import { formatRule } from './constraint-rules';

/**
 * The proof's obligations as spec 000 diagnostics: a refuted hard obligation is a hard failure
 * (`missing_producer` for an uncovered required property, `schema_incompatible` otherwise), a
 * refuted soft constraint a warning, and an undecided one an informational finding with status
 * `unknown` that says which keyword or operator is left to run-time checks and repair.
 */
export function proofDiagnostics(
  proof: ContractProof,
  constraints: readonly ConstraintSpec[],
): PlanDiagnostic[] {
  const byId = new Map(constraints.map((c, i) => [constraintIdOf(c, i), c]));
  return proof.obligations.flatMap((o) =>
    o.verdict === 'proven' ? [] : [toDiagnostic(o, o.constraintId ? byId.get(o.constraintId) : undefined)],
  );
}

function toDiagnostic(o: Obligation, spec: ConstraintSpec | undefined): PlanDiagnostic {
  const first = o.findings[0];
  const keywords = [...new Set(o.findings.flatMap((f) => f.keywords))];
  const constraintId = o.constraintId ?? `schema${o.pointer || '/'}`;
  const base = {
    constraint: (spec ? formatRule(spec.expr) : (first?.message ?? `${o.kind} ${o.pointer}`)).slice(0, 4_000),
    constraintId,
    ...(o.nodeIds[0] ? { nodeId: o.nodeIds[0] } : {}),
    details: {
      verdict: o.verdict,
      obligation: o.kind,
      pointer: o.pointer,
      keywords,
      ...(o.nodeIds.length ? { nodeIds: [...o.nodeIds] } : {}),
      findings: o.findings
        .slice(0, 20)
        .map((f) => ({ pointer: f.pointer, keywords: [...f.keywords], message: f.message.slice(0, 1_000) })),
    },
  };
  if (o.verdict === 'unknown') {
    const suggestion = `Checked at run time (${keywords.join(', ') || 'not decidable statically'}); a failing output is repaired.`;
    return { severity: 'informational', status: 'unknown', cause: 'advisory', ...base, suggestion };
  }
  const suggestion = suggestionFor(o, first, spec);
  if (o.level === 'soft')
    return { severity: 'soft', status: 'unsatisfied', cause: 'unsatisfied_soft', ...base, suggestion };
  const cause = o.kind === 'coverage' ? 'missing_producer' : 'schema_incompatible';
  return { severity: 'hard', status: 'unsatisfied', cause, ...base, suggestion };
}

function suggestionFor(o: Obligation, first: Finding | undefined, spec: ConstraintSpec | undefined): string {
  const key = o.pointer.split('/')[1] ?? '';
  if (o.kind === 'coverage')
    return `Add a node whose capability produces ${key}, supply it in the inputs, or make it optional.`;
  if (o.kind === 'constraint')
    return (
      (spec && countSuggestion(spec)) ??
      `No output the plan can produce satisfies ${o.constraintId} (${first?.message ?? ''}): change the plan's producers.`
    );
  if (o.kind === 'input') return `${first?.message ?? ''}: read at most that many, or drop the reader.`;
  const where = o.nodeIds.length ? ` of ${o.nodeIds.join(', ')}` : '';
  return `Make the output contract${where} and the caller's ${(first?.keywords ?? []).join('/') || 'schema'} at ${o.pointer || '/'} agree: ${first?.message ?? ''}`;
}

/** A count the rule fixes (`copyVariants.length == 2`): toward satisfaction, the plan asks for that many. */
function countSuggestion(spec: ConstraintSpec): string | undefined {
  const key = /"var":"([A-Za-z0-9_]+)\.length"/.exec(JSON.stringify(spec.expr))?.[1];
  if (key === undefined) return undefined;
  const bounds = ruleLength(spec.expr, key);
  if (bounds.min !== undefined && bounds.min === bounds.max)
    return `Expand branch node to produce exactly ${bounds.min} ${key === 'copyVariants' ? 'variants' : `${key} items`}.`;
  if (bounds.min !== undefined) return `Produce at least ${bounds.min} ${key}.`;
  return bounds.max === undefined ? undefined : `Produce at most ${bounds.max} ${key}.`;
}
