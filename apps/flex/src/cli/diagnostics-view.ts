import { DiagnosticsBundleSchema, parseEventPayload, type PlanDiagnostic } from '@flex/contracts';

const MAX_LINES = 12;

type RecordedFrame = { type: string; payload?: unknown; position: number };
const INDENT = ' '.repeat(30);

/** Events whose payload reports the validator's or the planner's findings. */
const WITH_FINDINGS = new Set(['plan_rejected', 'plan_generated', 'plan_updated', 'run_failed']);

/** Those, and the requests that carry a previous attempt's findings. */
const PLANNING_RECORDS = new Set([...WITH_FINDINGS, 'plan_requested']);

/**
 * What to print under a frame that reports findings: each unsatisfied failure (and, for an
 * accepted plan, each unsatisfied warning) with the fix it suggests.
 */
export function findingLines(type: string, payload: { diagnostics?: unknown } | undefined): string[] {
  if (!WITH_FINDINGS.has(type)) return [];
  const parsed = DiagnosticsBundleSchema.safeParse(payload?.diagnostics);
  if (!parsed.success) return [];
  const findings = [...parsed.data.failures, ...parsed.data.warnings].filter(
    (d) => d.status === 'unsatisfied',
  );
  const lines = findings.flatMap(finding);
  if (lines.length <= MAX_LINES) return lines;
  return [...lines.slice(0, MAX_LINES), `${INDENT}… ${findings.length} finding(s) in all`];
}

function finding(d: PlanDiagnostic): string[] {
  const mark = d.severity === 'hard' ? '✗' : '!';
  const subject = d.constraintId ?? d.nodeId ?? d.capabilityId ?? d.cause;
  const head = `${INDENT}${mark} ${subject}: ${d.constraint ?? d.cause}`;
  return d.suggestion ? [head, ...d.suggestion.split('\n').map((s) => `${INDENT}  fix: ${s}`)] : [head];
}

/**
 * `replay --verify` on the planning record: every planning event and failure parses against its
 * schema, so its diagnostics agree with their status and score and its registry snapshot with its
 * hash; accepted and rejected drafts name the registry the planner saw.
 */
export function planningProblems(frames: ReadonlyArray<RecordedFrame>): string[] {
  return frames.flatMap((f) => {
    if (!PLANNING_RECORDS.has(f.type)) return [];
    const parsed = parseEventPayload(f.type, f.payload);
    return parsed.ok ? [] : [`${f.type} at ${f.position}: ${parsed.error.message}`];
  });
}
