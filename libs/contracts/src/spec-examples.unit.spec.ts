/**
 * Every JSON example in the spec (/work/shared/spec) with its documented outcome. A sample is a
 * ```json block, an untagged block holding a JSON object, or the inline body of a `curl -d '…'`.
 * The table below must cover exactly the samples found: a new example in the spec fails this test
 * until someone decides what it must parse as, or why it is refused.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CapabilityRegistrationSchema,
  DecisionContractSchema,
  DiagnosticsBundleSchema,
  FacetCatalogError,
  FacetDefinitionSchema,
  getFacetCatalog,
  normalizeEnvelope,
  ResumeRequestSchema,
  RuntimePolicySchema,
  Spec004PlanSchema,
  TaskPoliciesSchema,
  type TaskEnvelope,
} from './index';

const SPEC_DIR = path.resolve(__dirname, '../../../../shared/spec');

interface Sample {
  key: string;
  text: string;
}

function extractSamples(file: string): Sample[] {
  const prefix = path.basename(file).split('_')[0].replace(/\.md$/, '');
  const markdown = fs.readFileSync(file, 'utf8');
  const texts: string[] = [];
  for (const m of markdown.matchAll(/^```([^\n`]*)\n([\s\S]*?)^```/gm)) {
    const [lang, body] = [m[1].trim(), m[2]];
    if (lang === 'json' || (lang === '' && /^\s*[[{]/.test(body))) texts.push(body);
    if (lang === 'bash') for (const d of body.matchAll(/-d\s+'(\{[^']*\})'/g)) texts.push(d[1]);
  }
  return texts.map((text, i) => ({ key: `${prefix}#${i}`, text }));
}

const MINIMAL = { objective: 'Spec example', outputContract: { schema: { type: 'object' } } };
const withPolicy = (policy: unknown) => ({ ...MINIMAL, policies: { runtime: [policy] } });

function expectNormalized(raw: unknown, changePaths: string[]): TaskEnvelope {
  const result = normalizeEnvelope(raw);
  if (!result.ok) throw new Error(`expected acceptance, got ${JSON.stringify(result.errors)}`);
  expect(result.changes.map((c) => c.path).sort()).toEqual([...changePaths].sort());
  return result.envelope;
}

function expectRefused(raw: unknown, expected: Array<{ path: string; code: string; hint: RegExp }>): void {
  const result = normalizeEnvelope(raw);
  if (result.ok) throw new Error('expected refusal');
  expect(result.errors.map((e) => ({ path: e.path, code: e.code }))).toEqual(
    expected.map(({ path: p, code }) => ({ path: p, code })),
  );
  result.errors.forEach((e, i) => expect(e.hint).toMatch(expected[i].hint));
}

const QA_GUARDRAIL = {
  id: 'qa_runtime_guardrail',
  trigger: {
    kind: 'onNodeComplete',
    selector: { nodeId: 'publish-1' },
    condition: { '<=': [0.6, { var: 'qaFindings.overallScore' }, 0.8] },
  },
  action: { type: 'hitl', rationale: 'Score between 0.6 and 0.8 requires human review' },
};
const QA_GUARDRAIL_CHANGES = [
  'policies.runtime[0].condition',
  'policies.runtime[0].trigger.condition',
  'policies.runtime[0].trigger.nodeId',
];

type Check = (text: string) => void;
interface Entry {
  anchor: string;
  outcome: string;
  check: Check;
}

const diagnosticsTemplate: Check = (text) => {
  expect(DiagnosticsBundleSchema.safeParse(JSON.parse(text)).success).toBe(false);
  const verdict = (status: string) =>
    DiagnosticsBundleSchema.safeParse(
      JSON.parse(text.replace('rejected | accepted | accepted_with_findings', status)),
    );
  expect(verdict('rejected').success).toBe(true);
  for (const status of ['accepted', 'accepted_with_findings']) {
    expect(verdict(status).error?.issues.map((i) => i.path.join('.'))).toEqual(['status']);
  }
};
const policiesFragment: Check = (text) => {
  const block = JSON.parse(text);
  expect(TaskPoliciesSchema.safeParse(block.policies).success).toBe(true);
  expect(expectNormalized({ ...MINIMAL, ...block }, []).policies).toEqual(block.policies);
};
const qaGuardrail: Check = (text) => {
  expect(expectNormalized(withPolicy(JSON.parse(text)), QA_GUARDRAIL_CHANGES).policies?.runtime).toEqual([
    QA_GUARDRAIL,
  ]);
};
const facetExample: Check = (text) => {
  const facet = FacetDefinitionSchema.parse(JSON.parse(text));
  const cataloged = getFacetCatalog().get(facet.name);
  expect(cataloged?.metadata.directionality).toBe(facet.metadata.directionality);
  expect(cataloged?.schema.enum as string[]).toEqual(expect.arrayContaining(facet.schema.enum as string[]));
};
const registration =
  (agentType: 'ai' | 'human'): Check =>
  (text) => {
    const parsed = CapabilityRegistrationSchema.parse(JSON.parse(text));
    expect(parsed.agentType).toBe(agentType);
    // `rationaleSummary` is not a catalog facet: the registry refuses this registration as written.
    expect(() => getFacetCatalog().resolveMany(parsed.outputContract, 'output')).toThrow(
      expect.objectContaining({ code: 'FACET_NOT_FOUND', facets: ['rationaleSummary'] }) as FacetCatalogError,
    );
  };
const decision: Check = (text) =>
  expect(DecisionContractSchema.parse(JSON.parse(text))).toEqual(JSON.parse(text));
const notJson: Check = (text) => expect(() => JSON.parse(text)).toThrow();

const TABLE: Record<string, Entry> = {
  '000#0': {
    anchor: '"satisfactionScore": 0.0',
    outcome: 'diagnostics template: only status "rejected" agrees with its hard failure',
    check: diagnosticsTemplate,
  },
  '000#1': {
    anchor: 'qa_runtime_guardrail',
    outcome: 'legacy runtime policy: nodeId, condition and between normalized',
    check: qaGuardrail,
  },
  '001#0': {
    anchor: 'low_quality_replan',
    outcome: 'canonical policies: accepted unchanged',
    check: policiesFragment,
  },
  '001#1': {
    anchor: '"name": "toneOfVoice"',
    outcome: 'facet definition, agrees with the catalog',
    check: facetExample,
  },
  '001#2': { anchor: '"agentType": "ai"', outcome: 'registration with agentType', check: registration('ai') },
  '002#0': {
    anchor: '"ALLOW" | "DENY"',
    outcome: 'type sketch, not JSON; blocks 1-4 exercise the schema',
    check: notJson,
  },
  '002#1': { anchor: 'POL_001_branch_scope', outcome: 'DecisionContract: DENY, hard', check: decision },
  '002#2': { anchor: 'POL_004_tool_allowlist', outcome: 'DecisionContract: DENY, hard', check: decision },
  '002#3': {
    anchor: 'All policies passed',
    outcome: 'DecisionContract: ALLOW, soft, null hints',
    check: decision,
  },
  '002#4': { anchor: 'POL_006_fail_close', outcome: 'DecisionContract: fail-closed DENY', check: decision },
  '003#0': {
    anchor: 'low_quality_replan',
    outcome: 'canonical policies: accepted unchanged',
    check: policiesFragment,
  },
  '003#1': {
    anchor: '"name": "toneOfVoice"',
    outcome: 'facet definition, agrees with the catalog',
    check: facetExample,
  },
  '003#2': {
    anchor: '"capabilityId": "writer.en"',
    outcome: 'registration without agentType: defaults to ai',
    check: registration('ai'),
  },
  '003#3': {
    anchor: '"satisfactionScore": 0.0',
    outcome: 'diagnostics template: only status "rejected" agrees with its hard failure',
    check: diagnosticsTemplate,
  },
  '003#4': {
    anchor: 'qa_runtime_guardrail',
    outcome: 'legacy runtime policy: nodeId, condition and between normalized',
    check: qaGuardrail,
  },
  '003#5': {
    anchor: 'hitl_reject_goto_previous',
    outcome: 'deprecated goto policy: refused with the replan hint',
    check: (text) =>
      expectRefused(withPolicy(JSON.parse(text)), [
        { path: 'policies.runtime[0].action.type', code: 'removed_action', hint: /replan/ },
      ]),
  },
  '003#6': {
    anchor: 'qa_low_score',
    outcome: 'migration example: canonical runtime policy, accepted unchanged',
    check: (text) => {
      expect(RuntimePolicySchema.parse(JSON.parse(text))).toEqual(JSON.parse(text));
      expectNormalized(withPolicy(JSON.parse(text)), []);
    },
  },
  '003#7': {
    anchor: 'AwesomePoster',
    outcome: 'legacy envelope: mode, brandVoice, requiresHitlApproval:false normalized',
    check: (text) => {
      const envelope = expectNormalized(JSON.parse(text), [
        'outputContract.mode',
        'policies.brandVoice',
        'policies.requiresHitlApproval',
      ]);
      expect(envelope.policies).toEqual({ planner: { directives: { brandVoice: 'inspiring' } } });
    },
  },
  '003#8': {
    anchor: 'flex_resume_123',
    outcome: 'run.resume body (curl -d)',
    check: (text) =>
      expect(ResumeRequestSchema.parse(JSON.parse(text))).toEqual({
        runId: 'flex_resume_123',
        expectedPlanVersion: 4,
      }),
  },
  '003#9': {
    anchor: '"ok": true',
    outcome: 'illustrative: excerpt of a GET runs/:id response, a gateway read model, not a contract here',
    check: (text) => expect(JSON.parse(text).ok).toBe(true),
  },
  '003#10': {
    anchor: 'Akkuro',
    outcome: 'legacy envelope: persona, variantCount, hitlRequiredFor:[final_publish] normalized',
    check: (text) => {
      const envelope = expectNormalized(JSON.parse(text), [
        'policies.persona',
        'policies.variantCount',
        'policies.hitlRequiredFor[0]',
      ]);
      expect(envelope.policies?.planner).toEqual({
        topology: { variantCount: 2 },
        directives: { persona: 'marketer' },
      });
      expect(envelope.policies?.runtime).toEqual([
        expect.objectContaining({
          trigger: { kind: 'onNodeComplete', selector: { kind: 'execution' } },
          action: expect.objectContaining({ type: 'hitl' }),
        }),
      ]);
    },
  },
  '004#0': {
    anchor: '"step_id": "s1"',
    outcome: 'plan-structure template ({ ... } and a|b|c placeholders): each instantiation is a Spec004Plan',
    check: (text) => {
      notJson(text);
      for (const onError of ['abort', 'continue', 'retry']) {
        const instance = text.replace('{ ... }', '{}').replace('abort|continue|retry', onError);
        expect(Spec004PlanSchema.parse(JSON.parse(instance)).steps[0].on_error).toBe(onError);
      }
    },
  },
};

describe('spec examples', () => {
  const files = fs.existsSync(SPEC_DIR)
    ? fs
        .readdirSync(SPEC_DIR)
        .filter((f) => f.endsWith('.md'))
        .sort()
    : [];
  const samples = files.flatMap((f) => extractSamples(path.join(SPEC_DIR, f)));

  it(`reads the spec from ${SPEC_DIR}`, () => {
    expect(files).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^000_/),
        expect.stringMatching(/^003_/),
        expect.stringMatching(/^004_/),
      ]),
    );
  });

  it('classifies every sample, and nothing else', () => {
    expect(samples.map((s) => s.key).sort()).toEqual(Object.keys(TABLE).sort());
  });

  it.each(Object.entries(TABLE).map(([key, entry]) => [key, entry.outcome, entry] as const))(
    '%s: %s',
    (key, _outcome, entry) => {
      const sample = samples.find((s) => s.key === key);
      if (!sample) throw new Error(`no sample ${key} in the spec`);
      expect(sample.text).toContain(entry.anchor);
      entry.check(sample.text);
    },
  );
});
