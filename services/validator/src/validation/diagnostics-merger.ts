import {
  bundleDiagnostics,
  canonicalJson,
  contentHash,
  type ConstraintSpec,
  type DiagnosticsBundle,
  type PlanDiagnostic,
  type ProofVerdict,
} from '@flex/contracts';
import { CONSTRAINT_WEIGHTS, constraintIdOf } from '@flex/logic';

const SEVERITY: Record<PlanDiagnostic['severity'], number> = { hard: 0, soft: 1, informational: 2 };
const STATUS: Record<PlanDiagnostic['status'], number> = { unsatisfied: 0, unknown: 1, satisfied: 2 };
/** Spec 000 §5.9.3 default weights: w_hard = 1.0, w_soft = 0.5 (informational constraints are not scored). */
export const DEFAULT_WEIGHTS = CONSTRAINT_WEIGHTS;

/** The dedupe key of spec 000 §5.9.3: (constraintId ∥ hash(constraint), nodeId ∥ '*', cause). */
export function dedupeKey(d: PlanDiagnostic): string {
  return `${d.constraintId || contentHash(d.constraint ?? '')}|${d.nodeId || '*'}|${d.cause}`;
}

/**
 * Spec 000 §5.9.3: dedupe on {@link dedupeKey}, keep the most severe (ties: the least satisfied,
 * then a fixed order on content, so the result never depends on arrival order), merge unique
 * suggestions newline-separated, sort severity → constraintId → nodeId, then the bundle status and
 * the satisfaction score ({@link satisfactionScore}). Merging a merged bundle's diagnostics again
 * changes nothing. `verdict` is the proof's, carried as it is.
 */
export function mergeDiagnostics(
  diagnostics: readonly PlanDiagnostic[],
  constraints: readonly ConstraintSpec[],
  verdict?: ProofVerdict,
): DiagnosticsBundle {
  const merged = new Map<string, { winner: PlanDiagnostic; suggestions: Set<string> }>();
  for (const d of diagnostics) {
    const key = dedupeKey(d);
    const seen = merged.get(key);
    if (!seen) {
      merged.set(key, { winner: d, suggestions: new Set(lines(d.suggestion)) });
      continue;
    }
    if (dominates(d, seen.winner)) seen.winner = d;
    for (const line of lines(d.suggestion)) seen.suggestions.add(line);
  }
  const all = [...merged.entries()]
    .map(([key, { winner, suggestions }]) => ({ key, diagnostic: withSuggestions(winner, suggestions) }))
    .sort((a, b) => compareDiagnostics(a.diagnostic, b.diagnostic) || cmp(a.key, b.key))
    .map((x) => x.diagnostic);
  return bundleDiagnostics(all, satisfactionScore(all, constraints), verdict);
}

/**
 * satisfactionScore = Σ w_i s_i / Σ w_i (spec 000 §5.9.3). The declared hard and soft constraints
 * are scored at w_hard = 1.0, w_soft = 0.5, s_i = 0 when an unsatisfied diagnostic names the
 * constraint, else 1; informational constraints are excluded. A sound plan is the formula's
 * premise: when an unsatisfied hard diagnostic names no scored constraint (a structural, facet,
 * capability or policy-against-schema failure), the plan's soundness joins the sum as one more hard
 * obligation with s = 0. So an unsatisfied hard finding never leaves the score at 1, a sound plan is
 * scored exactly as the spec says, and nothing scored at all gives 1. Rounded to 6 decimals.
 */
export function satisfactionScore(
  diagnostics: readonly PlanDiagnostic[],
  constraints: readonly ConstraintSpec[],
  weights: Readonly<Record<'hard' | 'soft', number>> = DEFAULT_WEIGHTS,
): number {
  const unsatisfied = new Set(
    diagnostics.filter((d) => d.status === 'unsatisfied' && d.constraintId).map((d) => d.constraintId),
  );
  const scored = new Set<string>();
  let total = 0;
  let met = 0;
  constraints.forEach((c, index) => {
    if (c.level === 'informational') return;
    const id = constraintIdOf(c, index);
    scored.add(id);
    total += weights[c.level];
    if (!unsatisfied.has(id)) met += weights[c.level];
  });
  if (diagnostics.some((d) => isUnsound(d, scored))) total += weights.hard;
  if (total === 0) return 1;
  const score = Math.round((met / total) * 1e6) / 1e6;
  // Rounding must not lift a plan that misses something back to a perfect score.
  return met < total && score === 1 ? 0.999999 : score;
}

/** An unsatisfied hard finding the constraint sum does not already count. */
function isUnsound(d: PlanDiagnostic, scored: ReadonlySet<string>): boolean {
  const counted = d.constraintId !== undefined && scored.has(d.constraintId);
  return d.severity === 'hard' && d.status === 'unsatisfied' && !counted;
}

function dominates(a: PlanDiagnostic, b: PlanDiagnostic): boolean {
  const order = SEVERITY[a.severity] - SEVERITY[b.severity] || STATUS[a.status] - STATUS[b.status];
  if (order !== 0) return order < 0;
  return (
    cmp(canonicalJson({ ...a, suggestion: undefined }), canonicalJson({ ...b, suggestion: undefined })) < 0
  );
}

function withSuggestions(d: PlanDiagnostic, suggestions: Set<string>): PlanDiagnostic {
  // Sorted, so the merge does not depend on the order diagnostics arrive in.
  const text = [...suggestions].sort().join('\n');
  const { suggestion: _dropped, ...rest } = d;
  return text ? { ...rest, suggestion: text } : rest;
}

const lines = (text?: string): string[] => (text ?? '').split('\n').filter((l) => l.length > 0);

function compareDiagnostics(a: PlanDiagnostic, b: PlanDiagnostic): number {
  return (
    SEVERITY[a.severity] - SEVERITY[b.severity] ||
    cmp(a.constraintId ?? '', b.constraintId ?? '') ||
    cmp(a.nodeId ?? '', b.nodeId ?? '') ||
    cmp(a.cause, b.cause)
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
