import { registrySnapshotOf } from '@flex/contracts';
import { findingLines, planningProblems } from './diagnostics-view';

const failure = {
  severity: 'hard',
  status: 'unsatisfied',
  cause: 'missing_producer',
  constraintId: 'facet.copyVariants',
  constraint: 'an active capability produces copyVariants',
  suggestion: 'Register an agent whose outputContract includes copyVariants.',
};
const rejected = { status: 'rejected', satisfactionScore: 0, failures: [failure], warnings: [], infos: [] };
const pad = ' '.repeat(30);

describe('flex run: findings under a frame', () => {
  it('prints each unsatisfied failure with its fix', () => {
    expect(findingLines('run_failed', { diagnostics: rejected })).toEqual([
      `${pad}✗ facet.copyVariants: an active capability produces copyVariants`,
      `${pad}  fix: Register an agent whose outputContract includes copyVariants.`,
    ]);
  });

  it('prints nothing for frames without findings', () => {
    expect(findingLines('node_start', { diagnostics: rejected })).toEqual([]);
    expect(findingLines('run_failed', {})).toEqual([]);
    expect(
      findingLines('plan_generated', {
        diagnostics: { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] },
      }),
    ).toEqual([]);
  });
});

describe('flex replay --verify: the planning record', () => {
  const registry = registrySnapshotOf([]);

  it('accepts consistent planning events and names the inconsistent ones', () => {
    const ok = {
      type: 'run_failed',
      position: 7,
      payload: { code: 'PLANNER_NO_CAPABILITIES', reason: 'planner: none', diagnostics: rejected, registry },
    };
    expect(planningProblems([ok])).toEqual([]);
    const scoredOne = {
      ...ok,
      payload: { ...ok.payload, diagnostics: { ...rejected, satisfactionScore: 1 } },
    };
    const tampered = {
      ...ok,
      position: 8,
      payload: { ...ok.payload, registry: { ...registry, hash: 'a'.repeat(64) } },
    };
    const problems = planningProblems([
      scoredOne,
      tampered,
      { type: 'node_start', position: 9, payload: {} },
    ]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^run_failed at 7: .*diagnostics\.satisfactionScore/);
    expect(problems[1]).toMatch(/^run_failed at 8: .*registry\.hash/);
  });
});
