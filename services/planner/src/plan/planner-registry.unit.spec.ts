import { loadConfig } from '@flex/runtime';
import { plannerFromConfig } from './planner-registry';

describe('plannerFromConfig', () => {
  it.each([
    [{}, 'rule-based', 'full'],
    [{ FLEX_PLANNER: 'llm' }, 'rule-based', 'full'],
    [{ FLEX_LLM_BASE_URL: 'http://127.0.0.1:9/v1' }, 'rule-based', 'full'],
    [{ FLEX_PLANNER: 'llm', FLEX_LLM_BASE_URL: 'http://127.0.0.1:9/v1' }, 'llm', 'structural'],
  ])('%j → %s', (env, id, mode) => {
    const planner = plannerFromConfig(loadConfig(env as NodeJS.ProcessEnv));
    expect([planner.id, planner.mode]).toEqual([id, mode]);
    expect(planner.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('refuses an unknown planner name when the configuration loads', () => {
    expect(() => loadConfig({ FLEX_PLANNER: 'magic' } as NodeJS.ProcessEnv)).toThrow(/FLEX_PLANNER/);
  });
});
