import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PlanGeneratedPayloadSchema, PlanRejectedPayloadSchema, registrySnapshotOf } from '@flex/contracts';
import { activeRegistrations, fetchCapabilitySnapshot } from '@flex/runtime';
import type { Frame } from '@flex/testing';
import { useEmbeddedFlex } from './embedded-flex';

const TOKEN = 'plan-loop-client';
const sample = () => JSON.parse(readFileSync(join(__dirname, '../../examples/envelope.json'), 'utf8'));
const types = (frames: Frame[]) => frames.map((f) => f.type);
const payloadOf = (frames: Frame[], type: string): any => frames.find((f) => f.type === type)?.payload;

/** The whole loop in one process (gateway, registry, planner, validator, executor, reference agents). */
describe('plan → proof → run (embedded)', () => {
  const embedded = useEmbeddedFlex(TOKEN);

  it('a first draft the validator rejects, a second it accepts: plan_requested → plan_rejected → plan_requested → plan_generated → complete', async () => {
    // The caller allows a plan three nodes deep; the first draft branches its two variants (depth 4).
    const envelope = sample();
    envelope.policies = { planner: { topology: { maxDepth: 3 } } };
    const result = await embedded.client().runStream(envelope);
    expect(result.status).toBe(200);
    const planning = types(result.frames).filter((t) => t.startsWith('plan_'));
    expect(planning).toEqual(['plan_requested', 'plan_rejected', 'plan_requested', 'plan_generated']);
    const rejected = PlanRejectedPayloadSchema.parse(payloadOf(result.frames, 'plan_rejected'));
    expect(rejected).toMatchObject({
      attempt: 1,
      metadata: { plannerId: 'rule-based' },
      diagnostics: {
        status: 'rejected',
        verdict: 'refuted',
        failures: [{ cause: 'schema_incompatible', constraintId: 'structure.max_depth' }],
      },
    });
    expect(rejected.diagnostics.satisfactionScore).toBeLessThan(1);
    const second = result.frames.filter((f) => f.type === 'plan_requested')[1];
    expect(second.payload).toMatchObject({
      attempt: 2,
      reason: 'rejected',
      diagnostics: { status: 'rejected' },
    });
    const generated = PlanGeneratedPayloadSchema.parse(payloadOf(result.frames, 'plan_generated'));
    expect(generated).toMatchObject({
      planVersion: 1,
      diagnostics: { status: 'accepted', satisfactionScore: 1, verdict: 'proven' },
    });
    // Both drafts name the registry the planner was given: the live one, as a replay can check.
    const live = registrySnapshotOf(
      activeRegistrations(
        await fetchCapabilitySnapshot(embedded.flex().runtime.messaging, embedded.flex().runtime.prefix),
      ),
    );
    expect(rejected.registry).toEqual(live);
    expect(generated.registry).toEqual(live);
    expect(generated.nodes.filter((n: { kind: string }) => n.kind === 'branch')).toHaveLength(0);
    expect(types(result.frames).at(-1)).toBe('complete');
    expect(payloadOf(result.frames, 'complete').output.copyVariants).toHaveLength(2);
  }, 60_000);

  it('proves a hard QA constraint, then checks it on the final output: complete carries satisfactionScore and observedSatisfaction', async () => {
    const envelope = sample();
    envelope.outputContract.constraints = [
      { constraintId: 'min_qa', level: 'hard', expr: { '>=': [{ var: 'qaFindings.overallScore' }, 0] } },
      { constraintId: 'exact_two', level: 'soft', expr: { '==': [{ var: 'copyVariants.length' }, 2] } },
      { constraintId: 'tone_hint', level: 'informational', expr: { '!!': [{ var: 'toneOfVoice' }] } },
    ];
    const result = await embedded.client().runStream(envelope);
    const generated = payloadOf(result.frames, 'plan_generated');
    expect(generated.diagnostics).toMatchObject({
      status: 'accepted_with_findings',
      satisfactionScore: 1,
      failures: [],
      warnings: [],
      infos: [{ cause: 'advisory', constraintId: 'tone_hint' }],
    });
    const detail = await embedded.client().json('GET', `/api/v1/flex/runs/${result.runId}`);
    expect(detail.body.planVersions).toEqual([
      expect.objectContaining({
        version: 1,
        status: 'accepted_with_findings',
        satisfactionScore: 1,
        diagnostics: generated.diagnostics,
        registryHash: generated.registry.hash,
      }),
    ]);
    expect(generated.nodes.find((n: { enforces: string[] }) => n.enforces.includes('min_qa'))).toMatchObject({
      kind: 'validation',
    });
    expect(types(result.frames).at(-1)).toBe('complete');
    expect(payloadOf(result.frames, 'complete')).toMatchObject({
      satisfactionScore: 1,
      observedSatisfaction: 1,
    });
  }, 60_000);

  it('refutes a hard constraint no output can meet, before any agent runs, naming it and the path', async () => {
    const envelope = sample();
    envelope.outputContract.constraints = [
      { constraintId: 'min_qa', level: 'hard', expr: { '>': [{ var: 'qaFindings.overallScore' }, 1] } },
    ];
    const result = await embedded.client().runStream(envelope);
    const frames = types(result.frames);
    expect(frames).not.toContain('plan_generated');
    expect(frames).not.toContain('node_start');
    expect(frames.at(-1)).toBe('run_failed');
    expect(payloadOf(result.frames, 'plan_rejected').diagnostics).toMatchObject({
      status: 'rejected',
      verdict: 'refuted',
      failures: [
        {
          cause: 'schema_incompatible',
          constraintId: 'min_qa',
          details: { verdict: 'refuted', findings: [{ pointer: '/qaFindings/overallScore' }] },
        },
      ],
    });
    const failed = payloadOf(result.frames, 'run_failed');
    expect(failed.diagnostics.status).toBe('rejected');
    expect(JSON.stringify(failed.diagnostics.failures)).toContain('min_qa');
  }, 60_000);
});
