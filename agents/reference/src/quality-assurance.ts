import { defineAgent, effectiveOutputSchema, fitToSchema, truncateCodePoints } from '@flex/agent-sdk';
import { QA_CONTENT_REVIEW } from '@flex/contracts';
import type {
  CopyVariant,
  QaCheck,
  QaFindings,
  QaIssue,
  QaRubric,
  Recommendation,
  Severity,
  WriterBrief,
} from './facet-values';
import { CHECKS, type Problem } from './qa-checks';

export interface ReviewInputs {
  copyVariants: CopyVariant[];
  writerBrief?: WriterBrief;
  qaRubric?: QaRubric;
}

export interface Review {
  qaFindings: QaFindings;
  recommendationSet: Recommendation[];
}

const DEFAULT_RUBRIC: QaRubric = {
  checks: ['readability', 'clarity', 'objective_fit', 'policy_risk'],
  thresholds: { overall: 0.7 },
};
const DEFAULT_CHECK_THRESHOLD = 0.6;
/** Risk checks weigh more: one risky claim should move the verdict more than a long sentence. */
const WEIGHT: Partial<Record<QaCheck, number>> = { policy_risk: 2, compliance: 2, objective_fit: 1.5 };
const RANK: Record<Severity, number> = { high: 3, medium: 2, low: 1 };

/**
 * Scores every variant on each check the rubric lists (all scores in [0, 1], higher is better;
 * for `policy_risk`, 1 means no risky claim), averages them per check, and weighs the checks
 * into `overallScore`. Any high-severity problem fails the review; a score under its threshold
 * asks for a revision. Pure.
 */
export function reviewCopy(inputs: ReviewInputs): Review {
  const rubric = inputs.qaRubric ?? DEFAULT_RUBRIC;
  const brief = inputs.writerBrief ?? { angle: '', keyPoints: [], constraints: [] };
  const scores: Partial<Record<QaCheck, number>> = {};
  const found: Array<Problem & { check: QaCheck; variantIndex: number }> = [];
  for (const check of rubric.checks) {
    const results = inputs.copyVariants.map((v) => CHECKS[check](v, brief));
    scores[check] = round(results.reduce((n, r) => n + r.score, 0) / Math.max(1, results.length));
    results.forEach((r, variantIndex) =>
      found.push(...r.problems.map((p) => ({ ...p, check, variantIndex }))),
    );
  }
  const overallScore = weighted(scores);
  const below = rubric.checks.filter(
    (c) => (scores[c] ?? 1) < (rubric.thresholds[c] ?? DEFAULT_CHECK_THRESHOLD),
  );
  const overallThreshold = rubric.thresholds.overall ?? 0.7;
  const issues: QaIssue[] = found.map(({ check, severity, message, variantIndex }) => ({
    check,
    severity,
    message: truncateCodePoints(`Variant ${variantIndex + 1}: ${message}`, 1_000),
    variantIndex,
  }));
  for (const check of below)
    issues.push({
      check,
      severity: 'medium',
      message: `${check} scored ${scores[check]} (threshold ${rubric.thresholds[check] ?? DEFAULT_CHECK_THRESHOLD})`,
    });
  const status =
    found.some((p) => p.severity === 'high') || overallScore < overallThreshold - 0.25
      ? 'fail'
      : below.length > 0 || overallScore < overallThreshold
        ? 'needs_revision'
        : 'pass';
  return {
    qaFindings: { overallScore, scores, issues: bySeverity(issues).slice(0, 50), overallStatus: status },
    recommendationSet: recommend(found),
  };
}

function weighted(scores: Partial<Record<QaCheck, number>>): number {
  let total = 0;
  let weight = 0;
  for (const [check, score] of Object.entries(scores) as Array<[QaCheck, number]>) {
    const w = WEIGHT[check] ?? 1;
    total += w * score;
    weight += w;
  }
  return weight === 0 ? 1 : round(total / weight);
}

/** One recommendation per distinct fix, at the worst severity seen, naming the variants it concerns. */
function recommend(found: ReadonlyArray<Problem & { variantIndex: number }>): Recommendation[] {
  const byFix = new Map<string, { severity: Severity; variants: Set<number>; messages: Set<string> }>();
  for (const p of found) {
    const entry = byFix.get(p.fix) ?? {
      severity: p.severity,
      variants: new Set<number>(),
      messages: new Set<string>(),
    };
    if (RANK[p.severity] > RANK[entry.severity]) entry.severity = p.severity;
    entry.variants.add(p.variantIndex + 1);
    entry.messages.add(p.message);
    byFix.set(p.fix, entry);
  }
  const recs = [...byFix].map(([fix, e]) => ({
    severity: e.severity,
    recommendation: truncateCodePoints(fix, 1_000),
    rationale: truncateCodePoints(
      `Variant${e.variants.size > 1 ? 's' : ''} ${[...e.variants].join(', ')}: ${[...e.messages].slice(0, 3).join('; ')}.`,
      2_000,
    ),
  }));
  return bySeverity(recs).slice(0, 20);
}

function bySeverity<T extends { severity: Severity }>(items: T[]): T[] {
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => RANK[b.item.severity] - RANK[a.item.severity] || a.i - b.i)
    .map((x) => x.item);
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

export const qualityAssuranceAgent = defineAgent({
  registration: QA_CONTENT_REVIEW,
  handle: async (invocation, ctx) => {
    const inputs = invocation.inputs as Partial<ReviewInputs>;
    ctx.reportUsage({ tokens: 0, costCents: 0, model: 'deterministic' });
    return fitToSchema(
      { ...reviewCopy({ ...inputs, copyVariants: inputs.copyVariants ?? [] }) },
      effectiveOutputSchema(invocation),
    );
  },
});
