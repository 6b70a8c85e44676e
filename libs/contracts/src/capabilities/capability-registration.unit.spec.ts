import { CapabilityRegistrationSchema, CapabilityStatusSchema } from './capability-registration';

const registration = {
  capabilityId: 'ContentGeneratorAgent.linkedinVariants',
  version: '1.0.0',
  displayName: 'Copywriter – LinkedIn Variants',
  summary: 'Generates 1–5 LinkedIn-ready variants.',
  inputContract: ['writerBrief', 'planKnobs', 'toneOfVoice', 'audienceProfile'],
  outputContract: ['copyVariants'],
};

describe('CapabilityRegistrationSchema', () => {
  it('defaults agentType to ai and keeps everything else', () => {
    expect(CapabilityRegistrationSchema.parse(registration)).toEqual({ ...registration, agentType: 'ai' });
    expect(CapabilityRegistrationSchema.parse({ ...registration, agentType: 'human' }).agentType).toBe(
      'human',
    );
  });

  it.each([
    ['writer.en'],
    ['writer.fr'],
    ['QualityAssuranceAgent.contentReview'],
    ['a:b-c_d'],
    ['x'.repeat(128)],
  ])('accepts the capability id %s', (capabilityId) => {
    expect(CapabilityRegistrationSchema.safeParse({ ...registration, capabilityId }).success).toBe(true);
  });

  it.each([[''], ['has space'], ['slash/id'], ['x'.repeat(129)], ['emoji🙂']])(
    'refuses the capability id %j',
    (capabilityId) => {
      expect(
        CapabilityRegistrationSchema.safeParse({ ...registration, capabilityId }).error?.issues[0].path,
      ).toEqual(['capabilityId']);
    },
  );

  it.each<[string, Record<string, unknown>, string]>([
    ['an empty outputContract', { outputContract: [] }, 'outputContract'],
    ['a duplicate facet', { inputContract: ['toneOfVoice', 'toneOfVoice'] }, 'inputContract.1'],
    ['a bad facet name', { inputContract: ['tone of voice'] }, 'inputContract.0'],
    ['an unknown agentType', { agentType: 'robot' }, 'agentType'],
    ['an unknown field', { defaultContract: {} }, ''],
    ['an unknown trait', { inputTraits: { moods: ['calm'] } }, 'inputTraits'],
    [
      'a heartbeat timeout below its interval',
      { heartbeat: { intervalSeconds: 60, timeoutSeconds: 30 } },
      'heartbeat.timeoutSeconds',
    ],
    ['negative estimated tokens', { cost: { estimatedTokens: -1 } }, 'cost.estimatedTokens'],
    ['non-JSON metadata', { metadata: { seen: new Date(0) } }, 'metadata.seen'],
  ])('refuses %s', (_name, patch, path) => {
    const result = CapabilityRegistrationSchema.safeParse({ ...registration, ...patch });
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual([path]);
  });

  it('accepts free-form metadata, cost, heartbeat and an instance id', () => {
    const full = {
      ...registration,
      cost: { tier: 'standard', estimatedTokens: 6000, costCents: 1.5 },
      heartbeat: { intervalSeconds: 60, timeoutSeconds: 180 },
      metadata: { owner: 'marketing-ai', flags: { beta: true } },
      preferredModels: ['gpt-5.1'],
      instanceId: 'writer-7f3a',
    };
    expect(CapabilityRegistrationSchema.parse(full)).toEqual({ ...full, agentType: 'ai' });
  });

  it('lists the capability statuses', () => {
    expect(CapabilityStatusSchema.options).toEqual(['active', 'inactive', 'deregistered']);
  });
});
