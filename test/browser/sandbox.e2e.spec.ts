import { startReferenceAgents, type ReferenceAgents } from '@flex/agents-reference';
import { loadConfig } from '@flex/runtime';
import { startOpenAiServer, type OpenAiServer } from '@flex/testing';
import type { Browser, Page } from 'playwright-core';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { go, launchBrowser, openDashboard } from './browser-harness';

const CLIENT = 'client-token-sandbox';
const schema = {
  type: 'object',
  required: ['copyVariants'],
  properties: {
    copyVariants: {
      type: 'array',
      minItems: 2,
      maxItems: 2,
      items: {
        type: 'object',
        required: ['headline', 'body', 'callToAction'],
        properties: {
          headline: { type: 'string' },
          body: { type: 'string' },
          callToAction: { type: 'string' },
        },
      },
    },
  },
};
const firstDraft = {
  message: 'Here is a first draft. Which tone should it take?',
  patch: [
    { op: 'add', path: '/objective', value: 'Two LinkedIn posts about our summer retreat' },
    { op: 'add', path: '/inputs', value: { channel: 'linkedin', toneOfVoice: 'calm' } },
    { op: 'add', path: '/outputContract', value: { schema } },
  ],
};

/**
 * The developer sandbox in the browser: the metadata, the conversational builder against a local
 * OpenAI-compatible server (its JSON Patch applied and the draft re-validated, and the fallback
 * when it fails), and the plan inspector on the run the draft starts.
 */
describe('developer sandbox (headless Chromium, a local chat-completions server)', () => {
  let llm: OpenAiServer;
  let flex: EmbeddedFlex;
  let agents: ReferenceAgents;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchBrowser();
    llm = await startOpenAiServer();
    const config = loadConfig({
      FLEX_API_TOKENS: `${CLIENT}:client`,
      FLEX_LOG_LEVEL: 'silent',
      PORT: '0',
      FLEX_DEV_SANDBOX: 'true',
      FLEX_LLM_BASE_URL: llm.baseUrl,
      FLEX_LLM_MODEL: 'local-builder',
    });
    // The reference agents stay deterministic: the local model serves the builder only.
    flex = await startEmbedded({ config, dataDir: null, agents: false });
    agents = await startReferenceAgents({ messaging: flex.runtime.messaging, prefix: flex.runtime.prefix });
    await agents.ready;
    ({ page } = await openDashboard(browser, flex.url, CLIENT));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await agents?.stop();
    await flex?.close();
    await llm?.close();
  });

  it('shows the facet catalog, the capabilities and the templates', async () => {
    await page.getByRole('link', { name: 'Sandbox' }).click();
    await page
      .getByRole('region', { name: /^Facet catalog/ })
      .getByText('copyVariants')
      .first()
      .waitFor();
    await page.getByRole('region', { name: /^Capabilities: 3 active of 3/ }).waitFor();
    await page.getByRole('region', { name: 'Envelope templates (3)' }).waitFor();
    await page
      .getByRole('region', { name: 'Conversational builder' })
      .getByText('model local-builder')
      .waitFor();
  });

  it('builds an envelope from the model’s JSON Patch, and falls back to guidance when the model fails', async () => {
    const builder = page.getByRole('region', { name: 'Conversational builder' });
    llm.enqueue({ kind: 'json', content: firstDraft });
    await builder.getByLabel('What should the run do?').fill('Two LinkedIn posts about our summer retreat');
    await builder.getByRole('button', { name: 'Start building' }).click();
    await builder.getByText('Which tone should it take?').waitFor();
    await builder.getByText('✓ valid').waitFor();
    await builder.getByText('3 patch operation(s), applied').waitFor();
    expect(llm.requests.at(-1)?.body.messages.at(-1).content).toContain(
      'Two LinkedIn posts about our summer retreat',
    );

    llm.enqueue({
      kind: 'json',
      content: {
        message: 'Warmer it is.',
        patch: [{ op: 'replace', path: '/inputs/toneOfVoice', value: 'warm' }],
      },
    });
    await builder.getByLabel('Your answer').fill('Make it warm');
    await builder.getByRole('button', { name: 'Send' }).click();
    await builder.getByText('Warmer it is.').waitFor();
    await builder.getByLabel('Draft envelope').getByText('"toneOfVoice": "warm"').waitFor();

    llm.enqueue({ kind: 'status', status: 500 });
    await builder.getByLabel('Your answer').fill('Add a third variant');
    await builder.getByRole('button', { name: 'Send' }).click();
    await builder.getByText(/The model gave no usable answer/).waitFor();
    await builder.getByText('✓ valid · the model answered HTTP 500').waitFor();
  });

  it('starts the draft and shows its plan in the plan inspector, live', async () => {
    await page.getByRole('button', { name: 'Start run and inspect its plan' }).click();
    await page.waitForURL(/#\/sandbox\/inspect\/run_/);
    const plan = page.getByRole('region', { name: 'Plan v1' });
    await plan.getByText(/rule-based .* \(full determinism\)/).waitFor();
    await plan.getByRole('cell', { name: /StrategyManagerAgent\.briefing/ }).waitFor();
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-node-id]')].some(
        (n) => n.getAttribute('data-status') === 'completed',
      ),
    );
  }, 60_000);

  it('opens a template in the envelope editor', async () => {
    await go(page, '#/sandbox');
    const templates = page.getByRole('region', { name: /^Envelope templates/ });
    await templates
      .getByRole('listitem')
      .filter({ hasText: 'with a pause button' })
      .getByRole('button')
      .click();
    await page.waitForURL(/#\/new$/);
    expect(await page.getByLabel('TaskEnvelope (JSON)').inputValue()).toContain('"hold"');
    await page.locator('#envelope-check').getByText('A valid envelope').waitFor();
  });
});
