import { z } from 'zod';
import { UnitScoreSchema } from '../shared/identifiers';
import { PlanDiagnosticSchema, type DiagnosticSeverity, type PlanDiagnostic } from './plan-diagnostic';

/** The verdict of a diagnostics bundle (spec 000 §5.9.4). */
export const DiagnosticsStatusSchema = z.enum(['rejected', 'accepted', 'accepted_with_findings']);

/** See {@link DiagnosticsStatusSchema}. */
export type DiagnosticsStatus = z.infer<typeof DiagnosticsStatusSchema>;

/**
 * The proof's three-valued verdict (DESIGN §8): `proven` (every facet-valid output composes into a
 * contract-valid one), `refuted` (the diagnostics say where and why), `unknown` (runtime checks and
 * repair decide). It sits beside `status`, which stays the spec 000 merge verdict over the findings.
 */
export const ProofVerdictSchema = z.enum(['proven', 'refuted', 'unknown']);

/** See {@link ProofVerdictSchema}. */
export type ProofVerdict = z.infer<typeof ProofVerdictSchema>;

/**
 * The bundle status the spec's merge algorithm gives (spec 000 §5.9.3 step 4): `rejected` if any
 * hard diagnostic is unsatisfied; else `accepted_with_findings` if any other diagnostic is
 * unsatisfied or advisory; else `accepted`.
 */
export function deriveDiagnosticsStatus(diagnostics: readonly PlanDiagnostic[]): DiagnosticsStatus {
  if (diagnostics.some((d) => d.severity === 'hard' && d.status === 'unsatisfied')) return 'rejected';
  if (diagnostics.some((d) => d.status === 'unsatisfied' || d.cause === 'advisory'))
    return 'accepted_with_findings';
  return 'accepted';
}

type Bucket = 'failures' | 'warnings' | 'infos';

const BUCKETS: ReadonlyArray<readonly [Bucket, DiagnosticSeverity]> = [
  ['failures', 'hard'],
  ['warnings', 'soft'],
  ['infos', 'informational'],
];

const BundleShape = {
  status: DiagnosticsStatusSchema,
  /**
   * How much of the contract the plan can satisfy, in [0, 1]. Spec 000 §5.9.3 over the declared
   * constraints: Σ w_i·s_i / Σ w_i with w_hard = 1, w_soft = 0.5, informational excluded, where s_i
   * is 0 when an unsatisfied diagnostic names the constraint. A sound plan is the premise of that
   * formula, so an unsatisfied hard finding that names no scored constraint (structure, facets,
   * capabilities, policy against schema, a planning failure) is one more hard obligation, with
   * s = 0, in the sum. Hence a bundle with an unsatisfied hard diagnostic never scores 1, and a
   * planning failure (no plan, nothing satisfiable) scores 0. No scored obligation at all → 1.
   */
  satisfactionScore: UnitScoreSchema,
  /** The proof's verdict, when the proof reached one (see {@link ProofVerdictSchema}). */
  verdict: ProofVerdictSchema.optional(),
  failures: z.array(PlanDiagnosticSchema),
  warnings: z.array(PlanDiagnosticSchema),
  infos: z.array(PlanDiagnosticSchema),
};

type BundleLike = { status: DiagnosticsStatus; satisfactionScore: number } & Record<Bucket, PlanDiagnostic[]>;

/** Each diagnostic sits in its severity's bucket, `status` follows the merge rule, a rejection never scores 1. */
function checkDiagnosticsBundle(bundle: BundleLike, ctx: z.RefinementCtx): void {
  for (const [bucket, severity] of BUCKETS) {
    bundle[bucket].forEach((d, index) => {
      if (d.severity === severity) return;
      const message = `${bucket} holds only ${severity} diagnostics`;
      issue(ctx, [bucket, index, 'severity'], message, 'wrong_bucket');
    });
  }
  const expected = deriveDiagnosticsStatus([...bundle.failures, ...bundle.warnings, ...bundle.infos]);
  if (bundle.status !== expected) {
    const message = `status is "${bundle.status}" but the diagnostics make it "${expected}"`;
    issue(ctx, ['status'], message, 'inconsistent_status');
  }
  if (expected === 'rejected' && bundle.satisfactionScore >= 1) {
    const message = 'a bundle with an unsatisfied hard diagnostic scores below 1';
    issue(ctx, ['satisfactionScore'], message, 'inconsistent_score');
  }
}

function issue(ctx: z.RefinementCtx, path: Array<string | number>, message: string, code: string): void {
  ctx.addIssue({ code: 'custom', path, message, params: { code } });
}

/**
 * Merged validator output (spec 000 §5.9.4): a status, the satisfaction score in [0, 1], the proof's
 * verdict when known, and diagnostics bucketed by severity. This one shape is what every event that
 * reports findings carries under `diagnostics` (`plan_generated`, `plan_rejected`, `plan_updated`,
 * `plan_requested` after a rejection, `run_failed` when planning or the proof failed).
 */
export const DiagnosticsBundleSchema = z.strictObject(BundleShape).superRefine(checkDiagnosticsBundle);

/** See {@link DiagnosticsBundleSchema}. */
export type DiagnosticsBundle = z.infer<typeof DiagnosticsBundleSchema>;

/** The bundle of an accepted plan: status `accepted` or `accepted_with_findings`. */
export const AcceptedDiagnosticsBundleSchema = DiagnosticsBundleSchema.refine(
  (d) => d.status !== 'rejected',
  {
    error: 'an accepted plan has status "accepted" or "accepted_with_findings"',
    path: ['status'],
  },
);

/** The bundle of a refused plan or a failed planning: status `rejected`. */
export const RejectedDiagnosticsBundleSchema = DiagnosticsBundleSchema.refine(
  (d) => d.status === 'rejected',
  {
    error: 'a rejected plan has status "rejected"',
    path: ['status'],
  },
);

/**
 * A bundle from diagnostics already merged and ordered (spec 000 §5.9.3): bucketed by severity,
 * with the status the merge rule gives, the score the caller computed and the proof's verdict.
 */
export function bundleDiagnostics(
  diagnostics: readonly PlanDiagnostic[],
  satisfactionScore: number,
  verdict?: ProofVerdict,
): DiagnosticsBundle {
  return {
    status: deriveDiagnosticsStatus(diagnostics),
    satisfactionScore,
    ...(verdict ? { verdict } : {}),
    failures: diagnostics.filter((d) => d.severity === 'hard'),
    warnings: diagnostics.filter((d) => d.severity === 'soft'),
    infos: diagnostics.filter((d) => d.severity === 'informational'),
  };
}
