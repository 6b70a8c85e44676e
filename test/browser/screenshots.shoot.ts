import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@flex/runtime';
import { FlexClient, startOpenAiServer, type OpenAiServer } from '@flex/testing';
import type { Browser, Page } from 'playwright-core';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { sampleEnvelope } from '../sample-run';
import { go, launchBrowser, openDashboard, waitForRunStatus } from './browser-harness';
import { startDemoAgents, WRITER_DOWN } from './demo-agents';

/**
 * `npm run screenshots`: the dashboard's main pages, written to docs/screenshots/ for the README
 * and docs/dashboard.md. Runs as a jest file (not matched by `npm test`) so it shares the browser
 * tests' harness: the embedded system, seeded with a few runs, in headless Chromium.
 */
const OUT = join(__dirname, '../../docs/screenshots');
const OPERATOR = 'operator-token-screenshots';
const review = {
  id: 'review',
  trigger: { kind: 'onStart' },
  action: { type: 'hitl', rationale: 'Approve the plan first' },
};
const withPolicies = (...runtime: unknown[]) => {
  const envelope = sampleEnvelope();
  envelope.policies = { ...envelope.policies, runtime };
  return envelope;
};

describe('screenshots of the dashboard', () => {
  let llm: OpenAiServer;
  let flex: EmbeddedFlex;
  let stopAgents: (() => Promise<void>) | undefined;
  let browser: Browser;
  let page: Page;
  const api = () => new FlexClient(flex.url, OPERATOR);
  const shoot = (name: string, fullPage = false) =>
    page.screenshot({ path: join(OUT, `${name}.png`), fullPage });

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    llm = await startOpenAiServer();
    llm.setFallback(() => ({ kind: 'json', content: builderReply }));
    const config = loadConfig({
      FLEX_API_TOKENS: `${OPERATOR}:operator`,
      FLEX_LOG_LEVEL: 'silent',
      PORT: '0',
      FLEX_DEV_SANDBOX: 'true',
      FLEX_NODE_MAX_ATTEMPTS: '1',
      FLEX_LLM_BASE_URL: llm.baseUrl,
      FLEX_LLM_MODEL: 'local-model',
    });
    // The agents stay deterministic: the local model serves the sandbox's builder only.
    flex = await startEmbedded({ config, dataDir: null, agents: false });
    stopAgents = await startDemoAgents(flex);
    browser = await launchBrowser();
    ({ page } = await openDashboard(browser, flex.url, OPERATOR));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stopAgents?.();
    await flex?.close();
    await llm?.close();
  });

  it('writes docs/screenshots/*.png', async () => {
    const done = await api().runStream(sampleEnvelope());
    const writerDown = sampleEnvelope();
    writerDown.objective = `${writerDown.objective} (${WRITER_DOWN})`;
    writerDown.policies = { planner: { selection: { prefer: ['ContentGeneratorAgent'] } } };
    const replanned = await api().runStream(writerDown);
    const waiting = await api().start(withPolicies(review));

    await go(page, '#/runs');
    await page.locator('table.runs tbody tr').nth(2).waitFor();
    await shoot('runs');

    await go(page, `#/runs/${waiting.runId}`);
    await waitForRunStatus(page, 'awaiting_hitl');
    await page
      .getByRole('form', { name: /hitl-1/ })
      .getByLabel('Note (optional)')
      .fill('Plan looks right');
    await shoot('run-awaiting-approval');

    await go(page, `#/runs/${done.runId}`);
    await waitForRunStatus(page, 'completed');
    await page.locator('[data-node-id^="execution"]').first().click();
    await page
      .getByRole('region', { name: /^Node / })
      .getByText('Attempt 1')
      .waitFor();
    await shoot('run-completed', true);

    await go(page, `#/runs/${replanned.runId}`);
    await page.getByRole('figure', { name: 'Plan v2' }).waitFor();
    await page.locator('[data-node-id="execution-1"][data-status="failed"]').click();
    await page
      .getByRole('region', { name: /^Node / })
      .getByText('Attempt 2')
      .waitFor();
    await shoot('run-replanned', true);

    await go(page, '#/new');
    const envelope = sampleEnvelope();
    envelope.policies = {
      runtime: [{ id: 'p1', trigger: { kind: 'manual' }, action: { type: 'goto', next: 'x' } }],
    };
    await page.getByLabel('TaskEnvelope (JSON)').fill(JSON.stringify(envelope, null, 2));
    await page
      .locator('#envelope-check')
      .getByText(/problem/)
      .waitFor();
    // The problem's path, clicked: the editor shows where it is.
    await page
      .locator('#envelope-check')
      .getByRole('button', { name: /^policies\.runtime/ })
      .click();
    await shoot('editor');

    await go(page, '#/capabilities');
    await page.locator('[data-heartbeat-age]').first().waitFor();
    await shoot('capabilities');

    await go(page, '#/sandbox');
    await page
      .getByLabel('What should the run do?')
      .fill('Two LinkedIn posts about our summer retreat in Tahoe');
    await page.getByRole('button', { name: 'Start building' }).click();
    await page.getByText('✓ valid').waitFor();
    await shoot('sandbox-builder');
    await page.getByRole('button', { name: 'Start run and inspect its plan' }).click();
    await page.waitForURL(/#\/sandbox\/inspect\/run_/);
    await page
      .getByRole('region', { name: 'Plan v1' })
      .getByText('completed')
      .first()
      .waitFor({ timeout: 60_000 });
    await shoot('plan-inspector');
    waiting.close();
  }, 240_000);
});

/** What the local model answers the builder: a first draft, as JSON Patch. */
const builderReply = {
  message: 'Here is a first draft: two LinkedIn variants about the retreat. Who is the audience?',
  patch: [
    { op: 'add', path: '/objective', value: 'Two LinkedIn posts about our summer retreat in Tahoe' },
    {
      op: 'add',
      path: '/inputs',
      value: {
        channel: 'linkedin',
        toneOfVoice: 'warm',
        contextBundles: [{ type: 'company_profile', payload: { companyName: 'AwesomePoster' } }],
      },
    },
    { op: 'add', path: '/outputContract', value: { schema: sampleEnvelope().outputContract.schema } },
  ],
};
