import { LIMITS } from '@flex/contracts';
import { currentEvaluationBudget, evaluateRule } from '@flex/logic';
import { ConfigError, loadConfig } from './config';
import { createEmbeddedRuntime } from './runtime.factory';

describe('the evaluation budget comes from the configuration', () => {
  it('defaults to the limits of the contracts, and refuses a budget that is not a positive integer', () => {
    const config = loadConfig({});
    expect(config.FLEX_LOGIC_MAX_OPERATIONS).toBe(LIMITS.jsonLogicMaxOperations);
    expect(config.FLEX_LOGIC_MAX_ITEMS).toBe(LIMITS.jsonLogicMaxItems);
    expect(() => loadConfig({ FLEX_LOGIC_MAX_ITEMS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ FLEX_LOGIC_MAX_OPERATIONS: 'many' })).toThrow(/FLEX_LOGIC_MAX_OPERATIONS/);
  });

  it('a runtime sets it for every evaluation of the process', async () => {
    const config = loadConfig({
      FLEX_LOGIC_MAX_OPERATIONS: '50',
      FLEX_LOGIC_MAX_ITEMS: '70',
      FLEX_LOG_LEVEL: 'silent',
    });
    const runtime = await createEmbeddedRuntime(config, { service: 'budget', dataDir: null });
    try {
      expect(currentEvaluationBudget()).toEqual({ operations: 50, items: 70 });
      const rule = { map: [{ var: 'xs' }, { '+': [{ var: '' }, 1] }] };
      expect(evaluateRule(rule, { xs: [1, 2] })).toEqual({ ok: true, value: [2, 3] });
      expect(evaluateRule(rule, { xs: Array.from({ length: 20 }, (_, i) => i) })).toMatchObject({
        ok: false,
        code: 'evaluation_budget_exceeded',
        error: expect.stringContaining('budget of 50 operations'),
      });
    } finally {
      await runtime.close();
    }
  });
});
