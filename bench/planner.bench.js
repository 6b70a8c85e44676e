'use strict';
// Rule-based planning (issue 5 "Speed"): plan the spec sample (two variants, QA required by a hard
// constraint) over registries of 10, 100 and 1,000 capabilities: the three reference capabilities
// plus seeded synthetic ones over the facet catalog, several of them competing for every facet the
// plan needs. Prints the median of many runs. Requires the built packages (`npm run build`).
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { line, summarize } = require('./stats');

const ROOT = join(__dirname, '..');
const { normalizeEnvelope, getFacetCatalog } = require(join(ROOT, 'libs/contracts/dist/index.js'));
const { planRuleBased } = require(join(ROOT, 'services/planner/dist/plan/rule-based.planner.js'));

const reg = (capabilityId, inputContract, outputContract, extra = {}) => ({ capabilityId, agentType: 'ai', version: '1', displayName: capabilityId, summary: 's', inputContract, outputContract, ...extra });
const REFERENCE = [
  reg('StrategyManagerAgent.briefing', ['objectiveBrief', 'audienceProfile', 'toneOfVoice', 'assetBundle'], ['writerBrief', 'planKnobs', 'strategicRationale']),
  reg('ContentGeneratorAgent.linkedinVariants', ['writerBrief', 'planKnobs', 'toneOfVoice', 'audienceProfile'], ['copyVariants'], { inputTraits: { formats: ['linkedin'] } }),
  reg('QualityAssuranceAgent.contentReview', ['copyVariants', 'writerBrief', 'qaRubric'], ['qaFindings', 'recommendationSet']),
];

function registry(size, seed = 7) {
  let s = seed;
  const random = () => ((s = (s * 1_103_515_245 + 12_345) & 0x7fffffff) / 0x7fffffff);
  const facets = getFacetCatalog().list();
  const inputs = facets.filter((f) => f.metadata.directionality !== 'output').map((f) => f.name);
  const outputs = facets.filter((f) => f.metadata.directionality !== 'input').map((f) => f.name);
  const pick = (list, n) => [...new Set(Array.from({ length: n }, () => list[Math.floor(random() * list.length)]))];
  const tiers = ['economy', 'standard', 'premium'];
  const synthetic = Array.from({ length: size - REFERENCE.length }, (_, i) =>
    reg(`Agent${i % 97}.cap${i}`, pick(inputs, 1 + Math.floor(random() * 4)), pick(outputs, 1 + Math.floor(random() * 2)), {
      cost: { tier: tiers[i % 3], estimatedTokens: Math.floor(random() * 20_000) },
      inputTraits: { languages: ['en'], formats: random() < 0.2 ? ['linkedin'] : ['blog'] },
    }),
  );
  return [...REFERENCE, ...synthetic];
}

const normalized = normalizeEnvelope(JSON.parse(require('node:fs').readFileSync(join(ROOT, 'examples/envelope.json'), 'utf8')));
if (!normalized.ok) throw new Error(JSON.stringify(normalized.errors));
const envelope = {
  ...normalized.envelope,
  outputContract: { ...normalized.envelope.outputContract, constraints: [{ constraintId: 'min_qa', level: 'hard', expr: { '>=': [{ var: 'qaFindings.overallScore' }, 0.8] } }] },
};

/** Median planning time over a registry of `size` capabilities (after a warm-up). */
function measurePlanning(size, runs) {
  const capabilities = registry(size);
  const request = { envelope, capabilities, planVersion: 1, attempt: 1 };
  const first = planRuleBased(request);
  if (!first.plan) throw new Error(`planning failed for ${size}: ${first.message}`);
  for (let i = 0; i < 10; i++) planRuleBased(request);
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    planRuleBased(request);
    samples.push(performance.now() - t0);
  }
  return { samples, nodes: first.plan.nodes.length };
}

/** The bench driver's planner section. */
function plannerSection(sizes, runsOf) {
  return sizes.map((size) => {
    const { samples, nodes } = measurePlanning(size, runsOf(size));
    const s = summarize(samples);
    return { capabilities: size, nodes, medianMs: s.median, p90Ms: s.p90, n: s.n };
  });
}

module.exports = { plannerSection };

if (require.main === module) {
  for (const size of [10, 100, 1_000]) {
    const { samples, nodes } = measurePlanning(size, size >= 1_000 ? 100 : 300);
    console.log(line(`rule-based plan, ${size} capabilities (${nodes} nodes)`, samples));
  }
}
