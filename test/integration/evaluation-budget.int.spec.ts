import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor, type Frame } from '@flex/testing';
import { useEmbeddedFlex } from './embedded-flex';

const TOKEN = 'evaluation-budget-client';
const sample = () => JSON.parse(readFileSync(join(__dirname, '../../examples/envelope.json'), 'utf8'));
const types = (frames: Frame[]) => frames.map((f) => f.type);
const BUDGET_ERROR = /the rule needs more than its evaluation budget of 100000 operations/;

/**
 * Within the static limits (its literal arrays cost ~60,000 operations per variant, under the
 * 100,000 of the budget), over the budget on the two variants the writer produces: only the
 * run-time budget can stop it, and the data decides when.
 */
const digits = Array.from({ length: 100 }, (_, i) => i % 10);
const costly = {
  all: [{ var: 'copyVariants' }, { all: [digits, { all: [digits, { '>=': [{ var: '' }, 0] }] }] }],
};

const withConstraint = (expr: unknown) => {
  const envelope = sample();
  envelope.outputContract.constraints = [{ constraintId: 'costly', level: 'hard', expr }];
  return envelope;
};

const withCondition = (condition: unknown) => {
  const envelope = sample();
  const trigger = { kind: 'onNodeComplete', selector: { kind: 'execution' }, condition };
  const action = { type: 'fail', message: 'the writer output met the condition' };
  envelope.policies = { ...envelope.policies, runtime: [{ id: 'costly', trigger, action }] };
  return envelope;
};

/** Untrusted rules run under a budget (issue 12 point 1): one over it fails closed, and only its run. */
describe('evaluation budgets (embedded, with the reference agents)', () => {
  const embedded = useEmbeddedFlex(TOKEN);
  const afterThisTest: Array<() => void> = [];
  afterEach(() => afterThisTest.splice(0).forEach((leave) => leave()));

  it('a policy condition over its budget fails its run (DENY, hard) as another completes', async () => {
    const client = embedded.client();
    const [hostile, ordinary] = await Promise.all([
      // False whenever it can be evaluated: only the budget makes the policy fire.
      client.runStream(withCondition({ '!': [costly] })),
      client.runStream(withConstraint({ '>=': [{ var: 'copyVariants.length' }, 2] })),
    ]);
    expect(types(ordinary.frames).at(-1)).toBe('complete');
    expect(types(hostile.frames).at(-1)).toBe('run_failed');
    const triggered = hostile.frames.find((f) => f.type === 'policy_triggered');
    expect(triggered?.payload.decision).toMatchObject({
      result: 'DENY',
      severity: 'hard',
      reason: expect.stringMatching(/^costly: condition could not be evaluated \(fail closed\)/),
    });
    expect(triggered?.payload.decision.reason).toMatch(BUDGET_ERROR);
    expect((await fetch(`${embedded.flex().url}/healthz`)).status).toBe(200);
  }, 120_000);

  it('a constraint over its budget does not hold, says why, and the process stays up', async () => {
    const client = embedded.client();
    const hostile = await client.start(withConstraint(costly));
    // Left open, a stream would hold the server's close: leave it whatever happens.
    afterThisTest.push(() => hostile.close());
    // The writer enforces the constraint: its outputs fail it, are retried, then go to a human.
    const request = await waitFor(
      async () => hostile.frames.find((f) => f.type === 'hitl_request'),
      60_000,
      () => `no hitl_request: ${types(hostile.frames).join(', ')}`,
    );
    const errors = hostile.frames.filter((f) => f.type === 'validation_error');
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) {
      expect(error.payload.errors).toContainEqual(
        expect.objectContaining({
          path: '/constraints/costly',
          message: expect.stringMatching(BUDGET_ERROR),
        }),
      );
    }
    expect(JSON.stringify(request.payload)).toMatch(BUDGET_ERROR);
    const ordinary = await client.runStream(withConstraint({ '>=': [{ var: 'copyVariants.length' }, 2] }));
    expect(types(ordinary.frames).at(-1)).toBe('complete');
    const cancelled = await client.json('POST', `/api/v1/flex/runs/${hostile.runId}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(types(await hostile.ended).at(-1)).toBe('run_cancelled');
    expect((await fetch(`${embedded.flex().url}/healthz`)).status).toBe(200);
  }, 120_000);
});
