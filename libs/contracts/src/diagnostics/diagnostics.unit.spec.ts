import { DecisionContractSchema } from './decision-contract';
import {
  AcceptedDiagnosticsBundleSchema,
  bundleDiagnostics,
  DiagnosticsBundleSchema,
  deriveDiagnosticsStatus,
  RejectedDiagnosticsBundleSchema,
} from './diagnostics-bundle';
import { PlanDiagnosticSchema, type PlanDiagnostic } from './plan-diagnostic';

const d = (
  severity: PlanDiagnostic['severity'],
  status: PlanDiagnostic['status'],
  cause: PlanDiagnostic['cause'] = 'missing_producer',
): PlanDiagnostic => ({
  severity,
  status,
  cause,
});

describe('deriveDiagnosticsStatus (spec 000 §5.9.3 step 4)', () => {
  it.each<[string, PlanDiagnostic[], string]>([
    ['nothing', [], 'accepted'],
    ['a satisfied hard constraint', [d('hard', 'satisfied')], 'accepted'],
    ['an unknown hard constraint', [d('hard', 'unknown')], 'accepted'],
    ['an unsatisfied hard constraint', [d('hard', 'unsatisfied'), d('soft', 'satisfied')], 'rejected'],
    [
      'an unsatisfied soft constraint',
      [d('hard', 'satisfied'), d('soft', 'unsatisfied', 'unsatisfied_soft')],
      'accepted_with_findings',
    ],
    ['an advisory info', [d('informational', 'unknown', 'advisory')], 'accepted_with_findings'],
    ['an unsatisfied info', [d('informational', 'unsatisfied')], 'accepted_with_findings'],
    ['a satisfied info', [d('informational', 'satisfied', 'missing_enforcer')], 'accepted'],
  ])('%s → %s', (_name, diagnostics, expected) => {
    expect(deriveDiagnosticsStatus(diagnostics)).toBe(expected);
  });
});

describe('DiagnosticsBundleSchema', () => {
  const bundle = {
    status: 'accepted_with_findings',
    satisfactionScore: 0.75,
    failures: [d('hard', 'satisfied')],
    warnings: [d('soft', 'unsatisfied', 'unsatisfied_soft')],
    infos: [],
  };

  it('accepts a consistent bundle', () => {
    expect(DiagnosticsBundleSchema.parse(bundle)).toEqual(bundle);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a status the diagnostics contradict', { status: 'accepted' }, ['status']],
    [
      'a soft diagnostic among failures',
      { failures: [d('soft', 'satisfied')], status: 'accepted_with_findings' },
      ['failures.0.severity'],
    ],
    ['a score above 1', { satisfactionScore: 1.5 }, ['satisfactionScore']],
    [
      'an unknown cause',
      { infos: [{ ...d('informational', 'unknown'), cause: 'vibes' }] },
      ['infos.0.cause'],
    ],
    ['an unknown field', { verdit: 'proven' }, ['']],
    ['a verdict outside the three values', { verdict: 'ok' }, ['verdict']],
    [
      'a rejection scored 1',
      { status: 'rejected', failures: [d('hard', 'unsatisfied')], satisfactionScore: 1 },
      ['satisfactionScore'],
    ],
  ])('refuses %s', (_name, patch, paths) => {
    expect(
      DiagnosticsBundleSchema.safeParse({ ...bundle, ...patch }).error?.issues.map((i) => i.path.join('.')),
    ).toEqual(paths);
  });

  it.each(['proven', 'refuted', 'unknown'])('carries the proof verdict %s', (verdict) => {
    expect(DiagnosticsBundleSchema.parse({ ...bundle, verdict })).toEqual({ ...bundle, verdict });
  });

  it('splits accepted from rejected bundles', () => {
    const rejected = {
      ...bundle,
      status: 'rejected',
      satisfactionScore: 0,
      failures: [d('hard', 'unsatisfied')],
    };
    expect(AcceptedDiagnosticsBundleSchema.safeParse(bundle).success).toBe(true);
    expect(AcceptedDiagnosticsBundleSchema.safeParse(rejected).success).toBe(false);
    expect(RejectedDiagnosticsBundleSchema.safeParse(rejected).success).toBe(true);
    expect(
      RejectedDiagnosticsBundleSchema.safeParse(bundle).error?.issues.map((i) => i.path.join('.')),
    ).toEqual(['status']);
  });

  it('builds a bundle from merged diagnostics: buckets by severity, status by the merge rule', () => {
    const list = [
      d('hard', 'unsatisfied'),
      d('soft', 'unsatisfied', 'unsatisfied_soft'),
      d('informational', 'unknown', 'advisory'),
    ];
    const built = bundleDiagnostics(list, 0.25, 'refuted');
    expect(built).toEqual({
      status: 'rejected',
      satisfactionScore: 0.25,
      verdict: 'refuted',
      failures: [list[0]],
      warnings: [list[1]],
      infos: [list[2]],
    });
    expect(DiagnosticsBundleSchema.parse(built)).toEqual(built);
    expect(bundleDiagnostics([], 1)).toEqual({
      status: 'accepted',
      satisfactionScore: 1,
      failures: [],
      warnings: [],
      infos: [],
    });
  });

  it('keeps the exact field names of spec 000 §5.9.3', () => {
    expect(Object.keys(PlanDiagnosticSchema.shape).sort()).toEqual(
      [
        'capabilityId',
        'cause',
        'constraint',
        'constraintId',
        'details',
        'nodeId',
        'severity',
        'status',
        'suggestion',
      ].sort(),
    );
  });
});

describe('DecisionContractSchema (spec 002)', () => {
  it.each([
    [{ result: 'DENY', reason: 'POL_1: no', severity: 'hard' }],
    [{ result: 'ALLOW', reason: 'ok', suggestion: null, alternative: null, severity: 'soft' }],
    [
      {
        result: 'DENY',
        reason: 'POL_2',
        suggestion: 'use a branch',
        alternative: { target: 'feature/*' },
        severity: 'hard',
      },
    ],
  ])('accepts %j', (decision) => {
    expect(DecisionContractSchema.parse(decision)).toEqual(decision);
  });

  it.each([
    ['a soft DENY', { result: 'DENY', reason: 'r', severity: 'soft' }, 'severity'],
    ['a hard ALLOW', { result: 'ALLOW', reason: 'r', severity: 'hard' }, 'severity'],
    ['a missing reason', { result: 'ALLOW', severity: 'soft' }, 'reason'],
    [
      'an executable alternative',
      { result: 'DENY', reason: 'r', severity: 'hard', alternative: 'rm -rf' },
      'alternative',
    ],
  ])('refuses %s', (_name, decision, path) => {
    expect(DecisionContractSchema.safeParse(decision).error?.issues.map((i) => i.path.join('.'))).toEqual([
      path,
    ]);
  });
});
