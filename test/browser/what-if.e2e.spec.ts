import { loadConfig } from '@flex/runtime';
import { FlexClient } from '@flex/testing';
import type { Browser, Page } from 'playwright-core';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { envelopeWithPolicies } from '../integration/embedded-run';
import { go, launchBrowser, openDashboard } from './browser-harness';

const OPERATOR = 'operator-token-what-if';
const ESCALATE = { id: 'escalate', trigger: { kind: 'onNodeComplete' }, action: { type: 'hitl' } };
const STOP = { id: 'stop', trigger: { kind: 'onStart' }, action: { type: 'fail', message: 'stopped early' } };

/**
 * The dashboard's policy what-if page in headless Chromium against the embedded system: a policy
 * set uploaded, runs picked, the changed decisions per run and the totals shown; a bad set refused
 * with its JSON path. Nothing is written.
 */
describe('dashboard: policy what-if (headless Chromium)', () => {
  let flex: EmbeddedFlex;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const runIds: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    flex = await startEmbedded({
      config: loadConfig({ FLEX_API_TOKENS: `${OPERATOR}:operator`, FLEX_LOG_LEVEL: 'silent', PORT: '0' }),
      dataDir: null,
      agents: true,
    });
    const api = new FlexClient(flex.url, OPERATOR);
    for (const policies of [[], [STOP]]) {
      const { runId, frames } = await api.runStream(envelopeWithPolicies(policies));
      expect(['complete', 'run_failed']).toContain(frames.at(-1)?.type);
      runIds.push(runId as string);
    }
    ({ page, problems } = await openDashboard(browser, flex.url, OPERATOR));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await flex?.close();
  });

  it('uploads a policy set, picks runs, and shows the changed decisions per run and in total', async () => {
    const head = await flex.runtime.store.headPosition();
    await go(page, '#/policy-what-if');
    await page.getByRole('heading', { name: 'Policy what-if' }).waitFor();
    await page.getByLabel('Or upload a policy file').setInputFiles({
      name: 'escalate.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ runtime: [ESCALATE] })),
    });
    await page.waitForFunction(() =>
      (document.getElementById('what-if-policies') as HTMLTextAreaElement).value.includes('escalate'),
    );
    await page.getByLabel(/^Run ids/).fill(runIds.join(','));
    await page.getByRole('button', { name: 'Show what would change' }).click();
    const totals = page.getByTestId('what-if-totals');
    await totals.waitFor({ timeout: 60_000 });
    expect(await totals.textContent()).toMatch(/^2 runs: 2 changed, 0 unchanged, 0 not comparable/);
    const escalated = page.locator(`li[data-run-id="${runIds[0]}"]`);
    expect(await escalated.textContent()).toMatch(/changed at position \d+/);
    expect(await escalated.getByText(/new hitl: hitl_request approval \(policy escalate\)/).count()).toBe(1);
    const stopped = page.locator(`li[data-run-id="${runIds[1]}"]`);
    expect(
      await stopped.getByText(/vanished deny: policy_triggered onStart → fail \(policy stop\)/).count(),
    ).toBe(1);
    expect(await page.getByRole('row', { name: /^hitl 1 0 0$/ }).count()).toBe(1);
    expect(await flex.runtime.store.headPosition()).toBe(head);
  }, 90_000);

  it('refuses a bad policy set, naming its JSON path', async () => {
    const bad = { runtime: [{ id: 'x', trigger: { kind: 'onStart' }, action: { type: 'goto' } }] };
    await page.getByLabel('Candidate policies (JSON)').fill(JSON.stringify(bad));
    await page.getByRole('button', { name: 'Show what would change' }).click();
    const issues = page.getByRole('list', { name: 'What is wrong' });
    await issues.waitFor();
    expect(await issues.textContent()).toContain('policies.runtime[0].action.type');
    expect(await page.getByRole('alert').textContent()).toContain('invalid_policies');
    expect(await page.getByTestId('what-if-totals').count()).toBe(0);
  }, 60_000);

  it('ran without an uncaught error or a content-security-policy violation', () => {
    expect(
      problems.filter((p) => p.startsWith('page error') || /Content Security Policy|Refused to/.test(p)),
    ).toEqual([]);
  });
});
