import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, normalizeEnvelope, type CapabilityRegistration, type TaskEnvelope } from '@flex/contracts';
import { referenceAgents } from '@flex/agents-reference';
import { planRuleBased } from './rule-based.planner';

const registrations: CapabilityRegistration[] = referenceAgents.map((a) => a.registration);

function envelope(file = 'envelope.json', patch: (raw: any) => void = () => undefined): TaskEnvelope {
  const raw = JSON.parse(readFileSync(join(__dirname, '../../../../examples', file), 'utf8'));
  patch(raw);
  const result = normalizeEnvelope(raw);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.envelope;
}

describe('rule-based planner', () => {
  it('plans the spec sample as strategy → copywriter → fallback', () => {
    const result = planRuleBased({ envelope: envelope(), capabilities: registrations, planVersion: 1, attempt: 1 });
    if (!result.ok) throw new Error(result.error.message);
    const { plan } = result;
    expect(plan.nodes.map((n) => [n.id, n.kind, n.capabilityId ?? null])).toEqual([
      ['structuring-1', 'structuring', 'StrategyManagerAgent.briefing'],
      ['execution-1', 'execution', 'ContentGeneratorAgent.linkedinVariants'],
      ['fallback-1', 'fallback', null],
    ]);
    expect(plan.edges).toEqual([
      { from: 'structuring-1', to: 'execution-1' },
      { from: 'execution-1', to: 'fallback-1' },
    ]);
    const writer = plan.nodes[1];
    expect(writer.inputFacets).toEqual(expect.arrayContaining(['writerBrief', 'planKnobs']));
    expect(writer.outputSchema).toMatchObject({ type: 'object', required: ['copyVariants'] });
    expect(plan.metadata).toMatchObject({ plannerId: 'rule-based', determinism: 'full' });
    expect(plan.metadata.inputHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives a byte-identical plan for the same input, whatever the registry order', () => {
    const env = envelope();
    const first = planRuleBased({ envelope: env, capabilities: registrations, planVersion: 1, attempt: 1 });
    for (let i = 0; i < 20; i++) {
      const shuffled = [...registrations].sort(() => Math.random() - 0.5);
      const again = planRuleBased({ envelope: env, capabilities: shuffled, planVersion: 1, attempt: 1 });
      expect(canonicalJson(again)).toBe(canonicalJson(first));
    }
  });

  it('adds QA when a hard constraint reads qaFindings', () => {
    const env = envelope('envelope.json', (raw) => {
      raw.outputContract.constraints = [{ constraintId: 'min_qa', level: 'hard', expr: { '>=': [{ var: 'qaFindings.overallScore' }, 0.5] } }];
    });
    const result = planRuleBased({ envelope: env, capabilities: registrations, planVersion: 1, attempt: 1 });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.plan.nodes.find((n) => n.kind === 'validation')?.capabilityId).toBe('QualityAssuranceAgent.contentReview');
  });

  it('returns a structured error, not a throw, when nothing produces the contract', () => {
    const result = planRuleBased({ envelope: envelope(), capabilities: registrations.filter((r) => !r.outputContract.includes('copyVariants')), planVersion: 1, attempt: 1 });
    expect(result).toMatchObject({ ok: false, error: { code: 'PLANNER_NO_CAPABILITIES', retryable: false, details: { missingFacets: ['copyVariants'] } } });
  });

  it('returns a structured error when a required capability is not registered', () => {
    const env = envelope('envelope.json', (raw) => {
      raw.policies = { planner: { selection: { require: ['Ghost.agent'] } } };
    });
    const result = planRuleBased({ envelope: env, capabilities: registrations, planVersion: 1, attempt: 1 });
    expect(result).toMatchObject({ ok: false, error: { code: 'PLANNER_NO_CAPABILITIES', details: { required: 'Ghost.agent' } } });
  });

  it('honours forbid by leaving the capability out', () => {
    const env = envelope('envelope.json', (raw) => {
      raw.policies = { planner: { selection: { forbid: ['StrategyManagerAgent'] } } };
    });
    const result = planRuleBased({ envelope: env, capabilities: registrations, planVersion: 1, attempt: 1 });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.plan.nodes.map((n) => n.capabilityId)).not.toContain('StrategyManagerAgent.briefing');
  });
});
