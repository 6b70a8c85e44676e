import {
  DiagnosticsBundleSchema,
  PlannerFallbackSchema,
  type DiagnosticsBundle,
  type PlanDiagnostic,
} from '@flex/contracts';

type Payload = Record<string, unknown>;

/** The one diagnostics bundle of a planning or failure event, when it carries one that parses. */
export function bundleOf(p: Payload): DiagnosticsBundle | undefined {
  const parsed = DiagnosticsBundleSchema.safeParse(p.diagnostics);
  return parsed.success ? parsed.data : undefined;
}

/** `accepted_with_findings, score 0.67, proven`: the bundle's verdicts in a few words. */
export function verdictOf(bundle: DiagnosticsBundle): string {
  const verdict = bundle.verdict ? [bundle.verdict] : [];
  return [bundle.status, `score ${bundle.satisfactionScore}`, ...verdict].join(', ');
}

/** The first blocking finding and what to change: `facet.copyVariants: … → Register …`. */
export function firstFailure(bundle: DiagnosticsBundle): string | undefined {
  const d = bundle.failures.find((f) => f.status === 'unsatisfied');
  return d ? findingLine(d) : undefined;
}

/** One diagnostic on one line: what it concerns, what is wrong, the first suggestion. */
export function findingLine(d: PlanDiagnostic): string {
  const subject = d.constraintId ?? d.nodeId ?? d.capabilityId ?? d.cause;
  const fix = d.suggestion ? ` → ${d.suggestion.split('\n')[0]}` : '';
  return `${subject}: ${d.constraint ?? d.cause}${fix}`;
}

export function describePlanRequested(p: Payload): string {
  const reason = typeof p.reason === 'string' && p.reason !== 'initial' ? `, ${p.reason}` : '';
  const fallback = PlannerFallbackSchema.safeParse(p.fallback);
  const by = fallback.success ? `; ${fallback.data.planner} fallback: ${fallback.data.message}` : '';
  return `planning (attempt ${String(p.attempt)}${reason}${by})`;
}

export function describePlanRejected(p: Payload): string {
  // The planner's own rejection (a replan a node's failure asked for) has no draft to reject.
  const what = p.source === 'planner' ? 'no plan from the planner' : 'plan rejected';
  const bundle = bundleOf(p);
  if (!bundle) return `${what}: see diagnostics`;
  return `${what} (${verdictOf(bundle)}): ${firstFailure(bundle) ?? 'see diagnostics'}`;
}

export function describePlanGenerated(p: Payload): string {
  const bundle = bundleOf(p);
  const list: unknown[] = Array.isArray(p.nodes) ? p.nodes : [];
  const ids = list.map((n) => (n && typeof n === 'object' && 'nodeId' in n ? String(n.nodeId) : '?'));
  const nodes = ids.join(' → ');
  return `plan v${String(p.planVersion)} accepted${bundle ? ` (${verdictOf(bundle)})` : ''}: ${nodes}`;
}

export function describePlanUpdated(p: Payload): string {
  const bundle = bundleOf(p);
  const findings = bundle ? ` (${verdictOf(bundle)})` : '';
  return `plan updated v${String(p.previousVersion)} → v${String(p.version)}${findings}`;
}

export function describeRunFailed(p: Payload): string {
  const reason = String(p.reason);
  const d = bundleOf(p)?.failures.find((f) => f.status === 'unsatisfied');
  // The validator's reason already names its first findings; a planner's does not.
  const more = d && !(d.constraint && reason.includes(d.constraint)) ? ` [${findingLine(d)}]` : '';
  return `run failed (${String(p.code)}): ${reason}${more}`;
}
