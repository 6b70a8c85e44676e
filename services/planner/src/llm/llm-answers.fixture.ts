interface AnswerNode {
  id: string;
  kind: string;
  capabilityId: string | null;
  inputFacets: string[];
  outputFacets: string[];
  dependsOn: string[];
  instructions: string | null;
  rationale: string | null;
}

/** LLM answers for tests: the spec sample planned as strategy → writer (→ QA). */
export function llmAnswer(options: { qa?: boolean; wording?: string } = {}): {
  nodes: AnswerNode[];
  rationale: string;
} {
  const wording = options.wording ?? 'Write the brief.';
  const nodes: AnswerNode[] = [
    {
      id: 'strategy',
      kind: 'structuring',
      capabilityId: 'StrategyManagerAgent.briefing',
      inputFacets: ['objectiveBrief', 'audienceProfile', 'toneOfVoice'],
      outputFacets: ['writerBrief', 'planKnobs'],
      dependsOn: [],
      instructions: wording,
      rationale: `Strategy first. ${wording}`,
    },
    {
      id: 'writer',
      kind: 'execution',
      capabilityId: 'ContentGeneratorAgent.linkedinVariants',
      inputFacets: ['writerBrief', 'planKnobs', 'toneOfVoice'],
      outputFacets: ['copyVariants'],
      dependsOn: ['strategy'],
      instructions: null,
      rationale: null,
    },
  ];
  if (options.qa) {
    nodes.push({
      id: 'qa',
      kind: 'validation',
      capabilityId: 'QualityAssuranceAgent.contentReview',
      inputFacets: ['copyVariants', 'writerBrief'],
      outputFacets: ['qaFindings', 'recommendationSet'],
      dependsOn: ['writer', 'strategy'],
      instructions: null,
      rationale: 'The caller requires QA.',
    });
  }
  return { nodes, rationale: 'Brief, then write.' };
}
