import { loadConfig } from '@flex/runtime';
import { FlexClient } from '@flex/testing';
import type { Browser, Page } from 'playwright-core';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { sampleEnvelope } from '../sample-run';
import { go, launchBrowser, openDashboard, recordNodeStates, waitForRunStatus } from './browser-harness';
import { startDemoAgents, WRITER_DOWN } from './demo-agents';

const OPERATOR = 'operator-token-dashboard';
const review = {
  id: 'review',
  trigger: { kind: 'onStart' },
  action: { type: 'hitl', rationale: 'Approve the plan first' },
};
const hold = {
  id: 'hold',
  trigger: { kind: 'manual' },
  action: { type: 'pause', reason: 'Held by an operator' },
};
const withPolicies = (...runtime: unknown[]) => {
  const envelope = sampleEnvelope();
  envelope.policies = { ...envelope.policies, runtime };
  return envelope;
};

/**
 * The dashboard as an operator uses it, in headless Chromium against the whole embedded system
 * (reference agents, in-memory database): the editor, a live run with an approval, a replanned
 * run's two plan versions, pause/resume/cancel, the runs list, the registry, secrets, the keyboard.
 */
describe('dashboard (headless Chromium)', () => {
  let flex: EmbeddedFlex;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let stopAgents: (() => Promise<void>) | undefined;
  const api = () => new FlexClient(flex.url, OPERATOR);

  beforeAll(async () => {
    browser = await launchBrowser();
    flex = await startEmbedded({
      config: loadConfig({
        FLEX_API_TOKENS: `${OPERATOR}:operator`,
        FLEX_LOG_LEVEL: 'silent',
        PORT: '0',
        FLEX_DEV_SANDBOX: 'true',
        // One attempt per node: the demo writer's failure asks for a replan at once.
        FLEX_NODE_MAX_ATTEMPTS: '1',
      }),
      dataDir: null,
      agents: false,
    });
    stopAgents = await startDemoAgents(flex);
    ({ page, problems } = await openDashboard(browser, flex.url, OPERATOR));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stopAgents?.();
    await flex?.close();
  });

  it('keeps the token in sessionStorage, never in the URL or localStorage', async () => {
    const storage = await page.evaluate(() => ({
      session: sessionStorage.getItem('flex.apiToken'),
      local: localStorage.length,
      url: location.href,
    }));
    expect(storage).toEqual({ session: OPERATOR, local: 0, url: expect.not.stringContaining(OPERATOR) });
    await page.reload();
    await page.getByRole('heading', { name: 'Runs', exact: true }).waitFor();
  });

  it('checks the envelope as it is typed, and shows what the server refuses with its JSON path', async () => {
    await go(page, '#/new');
    const editor = page.getByLabel('TaskEnvelope (JSON)');
    const envelope = sampleEnvelope();
    await editor.fill(JSON.stringify({ ...envelope, objective: '' }, null, 2));
    await page.locator('#envelope-check').getByRole('button', { name: 'objective' }).waitFor();
    expect(await page.getByRole('button', { name: 'Start run' }).isDisabled()).toBe(true);
    await editor.fill('{ "objective": ');
    await page
      .locator('#envelope-check')
      .getByText(/Not JSON yet/)
      .waitFor();
    // Valid for the contract; the output schema's $ref is what only the server checks.
    envelope.outputContract.schema.properties.copyVariants.items.$ref = 'https://example.com/item.json';
    await editor.fill(JSON.stringify(envelope, null, 2));
    await page.locator('#envelope-check').getByText('A valid envelope').waitFor();
    await page.getByRole('button', { name: 'Start run' }).click();
    const refused = page.locator('.server-errors');
    await refused.getByText('invalid_output_contract').waitFor();
    const path = refused.getByRole('button', { name: /^outputContract\.schema/ }).first();
    await path.click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('envelope');
  });

  it('starts a run from the editor, fills the graph in live, takes an approval, and ends complete', async () => {
    await go(page, '#/new');
    await page
      .getByLabel('Template')
      .selectOption({ label: 'LinkedIn post variants, approved by a human first' });
    await page.getByRole('button', { name: 'Use template' }).click();
    await page.locator('#envelope-check').getByText('A valid envelope').waitFor();
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/#\/runs\/run_/);
    const states = await recordNodeStates(page);
    await waitForRunStatus(page, 'awaiting_hitl');
    const form = page.getByRole('form', { name: /hitl-1/ });
    await form.getByText('Approve the plan first').waitFor();
    await page.locator('[data-node-id]').first().waitFor();
    const before = await page
      .locator('[data-node-id]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
    expect(new Set(before)).toEqual(new Set(['pending']));

    await form.getByLabel('Note (optional)').fill('Looks right');
    await form.getByRole('button', { name: 'Approve' }).click();
    await waitForRunStatus(page, 'completed');
    await page.getByRole('region', { name: 'Output' }).getByText('copyVariants').waitFor();

    const seen = await states();
    const agentNodes = Object.entries(seen).filter(([id]) => /^(structuring|execution|branch)/.test(id));
    expect(agentNodes.length).toBeGreaterThanOrEqual(2);
    for (const [id, history] of agentNodes) {
      expect([id, history[0]]).toEqual([id, 'pending']);
      expect([id, history.at(-1)]).toEqual([id, 'completed']);
    }
    const decisions = page.getByRole('region', { name: 'Policy decisions' });
    await decisions.getByRole('cell', { name: 'review', exact: true }).waitFor();
    expect(await decisions.getByText('DENY').count()).toBeGreaterThan(0);
    await page
      .getByRole('region', { name: 'HITL requests' })
      .getByText(/resolved \(approve\)/)
      .waitFor();
    await page.getByRole('region', { name: 'Diagnostics' }).getByText('Satisfaction score').first().waitFor();

    const node = page.locator('[data-node-id^="execution"]').first();
    await node.focus();
    await page.keyboard.press('Enter');
    const detail = page.getByRole('region', { name: /^Node / });
    await detail.getByText('Attempt 1').waitFor();
    await detail.getByRole('heading', { name: 'Output' }).waitFor();
  }, 120_000);

  it('opens a replanned run and shows both plan versions side by side, the differences marked', async () => {
    const envelope = sampleEnvelope();
    envelope.objective = `${envelope.objective} (${WRITER_DOWN})`;
    envelope.policies = { planner: { selection: { prefer: ['ContentGeneratorAgent'] } } };
    const run = await api().runStream(envelope);
    expect(run.frames.map((f) => f.type)).toEqual(expect.arrayContaining(['plan_updated', 'complete']));
    await go(page, `#/runs/${run.runId}`);
    await waitForRunStatus(page, 'completed');
    await page.getByRole('heading', { name: 'Plan versions v1 and v2' }).waitFor();
    const v1 = page.getByRole('figure', { name: 'Plan v1' });
    const v2 = page.getByRole('figure', { name: 'Plan v2' });
    await v1.locator('.mark-removed, .mark-changed').first().waitFor();
    await v2.locator('.mark-added, .mark-changed').first().waitFor();
    const summary = page.locator('.diff-summary');
    await summary.getByText(/node_failed/).waitFor();
    await summary.locator('li').first().waitFor();
    // v1 as it was when replaced: the writer failed; v2 routes around it on another capability.
    await v1.locator('[data-node-id="execution-1"][data-status="failed"].mark-changed').click();
    await v2.locator('[data-node-id="execution-1"][data-status="completed"].mark-changed').waitFor();
    await summary.getByText(/changed node execution-1: .*capabilityId/).waitFor();
    const detail = page.getByRole('region', { name: /^Node / });
    await detail.getByText('Attempt 2').waitFor();
    await detail.getByText(/writer_down/).waitFor();
  }, 120_000);

  it('scrubs a finished run back to the event its plan was accepted at (GET runs/:id?at=)', async () => {
    const run = await api().runStream(sampleEnvelope());
    const planned = run.frames.findIndex((f) => f.type === 'plan_generated');
    await go(page, `#/runs/${run.runId}`);
    await waitForRunStatus(page, 'completed');
    await page.locator('summary', { hasText: 'Time travel' }).click();
    await page.locator('[data-time-travel-status="completed"]').waitFor();
    await page.getByLabel('Event to show the run at').fill(String(planned));
    const then = page.locator(`[data-time-travel-position="${run.frames[planned].position}"]`);
    await then.locator('[data-time-travel-status="running"]').waitFor();
    expect(await then.getByLabel('Output then').count()).toBe(0);
  }, 120_000);

  it('pauses a run without a policy, with the reason typed, and resumes it', async () => {
    const started = await api().start(withPolicies(review));
    await go(page, `#/runs/${started.runId}`);
    await waitForRunStatus(page, 'awaiting_hitl');
    await page.getByRole('button', { name: 'Pause…' }).click();
    await page.getByLabel('Why pause (optional)').fill('Checking the brief');
    await page.getByRole('button', { name: 'Pause the run' }).click();
    await waitForRunStatus(page, 'paused');
    await page
      .getByRole('region', { name: 'Paused' })
      .getByText(/Checking the brief \(paused by tok_/)
      .waitFor();
    const paused = (await api().events(started.runId)).find((f) => f.type === 'run_paused');
    expect(paused?.payload).toMatchObject({ reason: 'Checking the brief', pausedBy: expect.any(String) });
    expect(await page.getByRole('button', { name: 'Pause…' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Resume' }).click();
    await waitForRunStatus(page, 'awaiting_hitl');
    await page.getByRole('button', { name: 'Pause…' }).waitFor();
    started.close();
    await api().json('POST', `/api/v1/flex/runs/${started.runId}/cancel`, {});
  }, 120_000);

  it('pauses (by a manual pause policy), resumes and cancels a run', async () => {
    const started = await api().start(withPolicies(review, hold));
    await go(page, `#/runs/${started.runId}`);
    await waitForRunStatus(page, 'awaiting_hitl');
    await page.getByRole('button', { name: /^Fire hold/ }).click();
    await waitForRunStatus(page, 'paused');
    await page.getByRole('region', { name: 'Paused' }).getByText('Held by an operator').waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await waitForRunStatus(page, 'awaiting_hitl');
    await page.getByRole('button', { name: 'Cancel run…' }).click();
    await page.getByLabel('Reason (optional)').fill('Not needed after all');
    await page.getByRole('button', { name: 'Cancel the run' }).click();
    await waitForRunStatus(page, 'cancelled');
    await page
      .getByRole('region', { name: 'Cancelled' })
      .getByText(/Not needed after all/)
      .waitFor();
    started.close();
  }, 120_000);

  it('lists runs by status, a page at a time', async () => {
    const runs: Array<{ status: string }> = (await api().json('GET', '/api/v1/flex/runs?limit=100')).body
      .runs;
    const count = (status: string) => runs.filter((r) => r.status === status).length;
    expect(runs.length).toBeGreaterThanOrEqual(3);
    await go(page, '#/runs?per=2');
    const rows = page.locator('table.runs tbody tr');
    await page.waitForFunction(() => document.querySelectorAll('table.runs tbody tr').length === 2);
    const first = await rows.first().textContent();
    await page.getByRole('button', { name: 'Older →' }).click();
    await page.getByText('Page 2', { exact: true }).waitFor();
    await page.waitForFunction(
      (text) => document.querySelector('table.runs tbody tr')?.textContent !== text,
      first,
    );
    const filters = page.getByRole('navigation', { name: 'Filter runs by status' });
    for (const status of ['cancelled', 'completed']) {
      await filters.getByRole('link', { name: status, exact: true }).click();
      await page.waitForFunction(
        ({ status, expected }) => {
          const badges = [...document.querySelectorAll('table.runs tbody tr .badge')].map(
            (b) => b.textContent,
          );
          return badges.length === expected && badges.every((b) => b === status);
        },
        { status, expected: Math.min(2, count(status)) },
      );
    }
  }, 60_000);

  it('shows the capability registry with heartbeat ages', async () => {
    await go(page, '#/capabilities');
    const row = page.getByRole('row', { name: /StrategyManagerAgent\.briefing/ });
    await row.waitFor();
    expect(await row.locator('[data-heartbeat-age]').textContent()).toMatch(/^\d+ (s|min) ago/);
    await row.getByText('active').waitFor();
  });

  it('never has a secret on the page: the events hold references only', async () => {
    const envelope = sampleEnvelope();
    envelope.inputs.apiKey = 'canary-sk-5f1e2d';
    envelope.inputs.notes = { $sensitive: 'canary-note-77aa' };
    const run = await api().runStream(envelope);
    expect(run.frames.at(-1)?.type).toBe('complete');
    await go(page, `#/runs/${run.runId}`);
    await waitForRunStatus(page, 'completed');
    for (const panel of ['Time travel', 'Events'])
      await page.locator('details.panel summary', { hasText: panel }).click();
    await page.locator('[data-time-travel-status]').waitFor();
    await page.locator('[data-node-id]').first().click();
    await page.getByRole('region', { name: /^Node / }).waitFor();
    const html = await page.content();
    expect(html).not.toContain('canary-');
    expect(JSON.stringify(await page.evaluate(() => ({ ...sessionStorage, ...localStorage })))).not.toContain(
      'canary-',
    );
  }, 60_000);

  it('can be used from the keyboard, with the focus always visible', async () => {
    await go(page, '#/runs');
    await page.reload();
    await page.locator('table.runs tbody tr').first().waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      const onRun = await page.evaluate(() => document.activeElement?.closest('table.runs') !== null);
      if (onRun) break;
    }
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const style = getComputedStyle(el);
      return { tag: el.tagName, outline: style.outlineStyle, width: style.outlineWidth };
    });
    expect(focused).toEqual({ tag: 'A', outline: 'solid', width: '3px' });
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/runs\/run_/);
    await page.locator('[data-node-id]').first().waitFor();
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(() => document.activeElement?.hasAttribute('data-node-id'))) break;
    }
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('BUTTON');
    await page.keyboard.press('Enter');
    await page
      .getByRole('region', { name: /^Node / })
      .getByText('Attempts')
      .waitFor();
  }, 60_000);

  it('ran without an uncaught error or a content-security-policy violation', () => {
    expect(
      problems.filter((p) => p.startsWith('page error') || /Content Security Policy|Refused to/.test(p)),
    ).toEqual([]);
  });
});
