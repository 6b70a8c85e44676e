import { contentHash, type ConstraintSpec, type DiagnosticsBundle, type PlanDiagnostic } from '@flex/contracts';

const RANK: Record<PlanDiagnostic['severity'], number> = { hard: 0, soft: 1, informational: 2 };
export const DEFAULT_WEIGHTS = { hard: 1.0, soft: 0.5 } as const;

/**
 * Spec 000 §5.9.3: dedupe on (constraintId ∥ hash(constraint), nodeId ∥ '*', cause), keep the most
 * severe, merge unique suggestions newline-separated, sort severity → constraintId → nodeId, then
 * the bundle status and the satisfaction score.
 */
export function mergeDiagnostics(diagnostics: readonly PlanDiagnostic[], constraints: readonly ConstraintSpec[]): DiagnosticsBundle {
  const merged = new Map<string, PlanDiagnostic>();
  for (const d of diagnostics) {
    const key = `${d.constraintId ?? contentHash(d.constraint ?? '')}|${d.nodeId ?? '*'}|${d.cause}`;
    const seen = merged.get(key);
    if (!seen) {
      merged.set(key, { ...d });
      continue;
    }
    const winner = RANK[d.severity] < RANK[seen.severity] ? { ...d } : seen;
    winner.suggestion = mergeSuggestions(seen.suggestion, d.suggestion);
    merged.set(key, winner);
  }
  const all = [...merged.values()].sort(compareDiagnostics);
  const rejected = all.some((d) => d.severity === 'hard' && d.status === 'unsatisfied');
  const findings = all.some((d) => d.status === 'unsatisfied' || d.cause === 'advisory');
  return {
    status: rejected ? 'rejected' : findings ? 'accepted_with_findings' : 'accepted',
    satisfactionScore: satisfactionScore(all, constraints),
    failures: all.filter((d) => d.severity === 'hard'),
    warnings: all.filter((d) => d.severity === 'soft'),
    infos: all.filter((d) => d.severity === 'informational'),
  };
}

/** Σ w_i s_i / Σ w_i over hard and soft constraints; informational ones are excluded; no constraints → 1. */
export function satisfactionScore(diagnostics: readonly PlanDiagnostic[], constraints: readonly ConstraintSpec[]): number {
  let total = 0;
  let met = 0;
  constraints.forEach((c, index) => {
    if (c.level === 'informational') return;
    const weight = DEFAULT_WEIGHTS[c.level];
    const id = c.constraintId ?? `constraint_${index}`;
    const unsatisfied = diagnostics.some((d) => d.constraintId === id && d.status === 'unsatisfied');
    total += weight;
    if (!unsatisfied) met += weight;
  });
  return total === 0 ? 1 : Math.round((met / total) * 1e6) / 1e6;
}

function mergeSuggestions(a?: string, b?: string): string | undefined {
  const lines = [...(a ?? '').split('\n'), ...(b ?? '').split('\n')].filter((l) => l.length > 0);
  // Sorted, so the merge does not depend on the order diagnostics arrive in.
  const unique = [...new Set(lines)].sort();
  return unique.length ? unique.join('\n') : undefined;
}

function compareDiagnostics(a: PlanDiagnostic, b: PlanDiagnostic): number {
  return RANK[a.severity] - RANK[b.severity] || cmp(a.constraintId ?? '', b.constraintId ?? '') || cmp(a.nodeId ?? '', b.nodeId ?? '') || cmp(a.cause, b.cause);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
