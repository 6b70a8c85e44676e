import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registrySnapshotOf, RunFailedPayloadSchema } from '@flex/contracts';
import { activeRegistrations, fetchCapabilitySnapshot, loadConfig } from '@flex/runtime';
import { FlexClient, type Frame } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';

const TOKEN = 'planner-failure-client';
const sample = () => JSON.parse(readFileSync(join(__dirname, '../../examples/envelope.json'), 'utf8'));
const failedOf = (frames: Frame[]) =>
  RunFailedPayloadSchema.parse(frames.find((f) => f.type === 'run_failed')?.payload);

/** A run the rule-based planner cannot plan fails with diagnostics naming what is missing, and the registry it saw. */
describe('planner: planning failures (embedded, reference agents)', () => {
  let flex: EmbeddedFlex;
  let client: FlexClient;

  beforeAll(async () => {
    flex = await startEmbedded({
      config: loadConfig({ FLEX_API_TOKENS: `${TOKEN}:client`, FLEX_LOG_LEVEL: 'silent', PORT: '0' }),
      dataDir: null,
    });
    client = new FlexClient(flex.url, TOKEN);
  }, 90_000);
  afterAll(() => flex?.close());

  it('names the facet nothing may produce, with its property path and a suggestion', async () => {
    const envelope = sample();
    envelope.policies = { planner: { selection: { forbid: ['ContentGeneratorAgent'] } } };
    const result = await client.runStream(envelope);
    expect(result.frames.map((f) => f.type)).toEqual(['start', 'plan_requested', 'run_failed']);
    const failed = failedOf(result.frames);
    expect(failed.code).toBe('PLANNER_NO_CAPABILITIES');
    expect(failed.diagnostics).toMatchObject({ status: 'rejected', satisfactionScore: 0 });
    expect(failed.diagnostics?.failures).toContainEqual(
      expect.objectContaining({
        severity: 'hard',
        status: 'unsatisfied',
        cause: 'missing_producer',
        constraintId: 'facet.copyVariants',
        suggestion:
          'ContentGeneratorAgent.linkedinVariants is excluded by policies.planner.selection.forbid: allow it (each produces copyVariants).',
        details: expect.objectContaining({ facet: 'copyVariants', path: '/properties/copyVariants' }),
      }),
    );
    const live = registrySnapshotOf(
      activeRegistrations(await fetchCapabilitySnapshot(flex.runtime.messaging, flex.runtime.prefix)),
    );
    expect(failed.registry).toEqual(live);
    const message = result.frames.at(-1)?.message ?? '';
    expect(message).toMatch(/^run failed \(PLANNER_NO_CAPABILITIES\): planner: .*\[facet\.copyVariants: /);
    const detail = await client.json('GET', `/api/v1/flex/runs/${result.runId}`);
    expect(detail.body.run.failure).toEqual({
      code: 'PLANNER_NO_CAPABILITIES',
      reason: failed.reason,
      diagnostics: failed.diagnostics,
    });
  }, 60_000);

  it('names a required capability that is not registered', async () => {
    const envelope = sample();
    envelope.policies = { planner: { selection: { require: ['Ghost.agent'] } } };
    const failed = failedOf((await client.runStream(envelope)).frames);
    expect(failed.diagnostics?.failures).toEqual([
      expect.objectContaining({
        cause: 'missing_producer',
        constraintId: 'policy.selection.require',
        capabilityId: 'Ghost.agent',
        suggestion: expect.stringContaining('Register and start an agent serving Ghost.agent'),
      }),
    ]);
  }, 60_000);
});
