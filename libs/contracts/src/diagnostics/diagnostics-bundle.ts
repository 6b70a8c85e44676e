import { z } from 'zod';
import { UnitScoreSchema } from '../shared/identifiers';
import { PlanDiagnosticSchema, type DiagnosticSeverity, type PlanDiagnostic } from './plan-diagnostic';

/** The verdict of a diagnostics bundle (spec 000 §5.9.4). */
export const DiagnosticsStatusSchema = z.enum(['rejected', 'accepted', 'accepted_with_findings']);

/** See {@link DiagnosticsStatusSchema}. */
export type DiagnosticsStatus = z.infer<typeof DiagnosticsStatusSchema>;

/**
 * The bundle status the spec's merge algorithm gives (spec 000 §5.9.3 step 4): `rejected` if any
 * hard diagnostic is unsatisfied; else `accepted_with_findings` if any other diagnostic is
 * unsatisfied or advisory; else `accepted`.
 */
export function deriveDiagnosticsStatus(diagnostics: readonly PlanDiagnostic[]): DiagnosticsStatus {
  if (diagnostics.some((d) => d.severity === 'hard' && d.status === 'unsatisfied')) return 'rejected';
  if (diagnostics.some((d) => d.status === 'unsatisfied' || d.cause === 'advisory')) return 'accepted_with_findings';
  return 'accepted';
}

const BUCKETS: ReadonlyArray<readonly ['failures' | 'warnings' | 'infos', DiagnosticSeverity]> = [
  ['failures', 'hard'],
  ['warnings', 'soft'],
  ['infos', 'informational'],
];

/** The bundle fields without the consistency checks, for payloads that embed them. */
export const DiagnosticsBundleFields = {
  status: DiagnosticsStatusSchema,
  satisfactionScore: UnitScoreSchema,
  failures: z.array(PlanDiagnosticSchema),
  warnings: z.array(PlanDiagnosticSchema),
  infos: z.array(PlanDiagnosticSchema),
};

type BundleLike = { status: DiagnosticsStatus; failures: PlanDiagnostic[]; warnings: PlanDiagnostic[]; infos: PlanDiagnostic[] };

/** Zod check that each diagnostic sits in its severity's bucket and `status` matches the merge rule. */
export function checkDiagnosticsBundle(bundle: BundleLike, ctx: z.RefinementCtx): void {
  for (const [bucket, severity] of BUCKETS) {
    bundle[bucket].forEach((d, index) => {
      if (d.severity !== severity) {
        ctx.addIssue({ code: 'custom', path: [bucket, index, 'severity'], message: `${bucket} holds only ${severity} diagnostics`, params: { code: 'wrong_bucket' } });
      }
    });
  }
  const expected = deriveDiagnosticsStatus([...bundle.failures, ...bundle.warnings, ...bundle.infos]);
  if (bundle.status !== expected) {
    ctx.addIssue({ code: 'custom', path: ['status'], message: `status is "${bundle.status}" but the diagnostics make it "${expected}"`, params: { code: 'inconsistent_status' } });
  }
}

/**
 * Merged validator output (spec 000 §5.9.4): a verdict, the satisfaction score in [0, 1], and
 * diagnostics bucketed by severity. The verdict must agree with the diagnostics.
 */
export const DiagnosticsBundleSchema = z.strictObject(DiagnosticsBundleFields).superRefine(checkDiagnosticsBundle);

/** See {@link DiagnosticsBundleSchema}. */
export type DiagnosticsBundle = z.infer<typeof DiagnosticsBundleSchema>;
