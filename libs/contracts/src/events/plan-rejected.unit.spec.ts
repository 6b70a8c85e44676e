import { contentHash } from '../canonical/canonical-json';
import { registrySnapshotOf } from '../planner/registry-snapshot';
import { parseEventPayload } from './event-catalog';

const hash = contentHash('x');
const registry = registrySnapshotOf([]);
const diagnostics = {
  status: 'rejected',
  satisfactionScore: 0,
  failures: [{ severity: 'hard', status: 'unsatisfied', cause: 'missing_producer', constraintId: 'two' }],
  warnings: [],
  infos: [],
};
const metadata = { plannerId: 'rule-based', plannerVersion: '1.0.0', determinism: 'full', inputHash: hash };
const plannerError = {
  code: 'PLANNER_NO_CAPABILITIES',
  message: 'no active capability produces copyVariants',
  retryable: false,
  details: {},
};
const byValidator = { attempt: 1, planHash: hash, metadata, registry, diagnostics };
const byPlanner = { source: 'planner', attempt: 2, plannerError, registry, diagnostics };

const issues = (payload: unknown) => {
  const result = parseEventPayload('plan_rejected', payload);
  return result.ok ? [] : result.error.issues.map((i) => [i.path, i.code]);
};

describe('plan_rejected: the validator refused a draft, or the planner found no plan', () => {
  it('a rejection without source is the validator’s, as every one stored before planner rejections is', () => {
    expect(parseEventPayload('plan_rejected', byValidator)).toEqual({ ok: true, value: byValidator });
    const explicit = { ...byValidator, source: 'validator' };
    expect(parseEventPayload('plan_rejected', explicit)).toEqual({ ok: true, value: explicit });
  });

  it('the planner’s carries its error and no draft', () => {
    expect(parseEventPayload('plan_rejected', byPlanner)).toEqual({ ok: true, value: byPlanner });
  });

  it('a validator rejection still needs its draft’s hash and provenance', () => {
    const { planHash: _hash, metadata: _metadata, ...noDraft } = byValidator;
    expect(issues(noDraft)).toEqual([
      ['planHash', 'required'],
      ['metadata', 'required'],
    ]);
  });

  it('a planner rejection needs the planner error and carries no draft hash', () => {
    const { plannerError: _error, ...noError } = byPlanner;
    expect(issues(noError)).toEqual([['plannerError', 'required']]);
    expect(issues({ ...byPlanner, planHash: hash })).toEqual([['planHash', 'unknown_field']]);
  });

  it('refuses a source it does not know, and still refuses an accepted bundle', () => {
    expect(issues({ ...byPlanner, source: 'executor' })).toEqual([['source', 'invalid_value']]);
    expect(
      issues({ ...byPlanner, diagnostics: { ...diagnostics, status: 'accepted', failures: [] } }),
    ).toEqual([['diagnostics.status', 'invalid_value']]);
  });
});
