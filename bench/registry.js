'use strict';
/** The reference agents' registrations, as the benches register them (and a builder for more). */
const reg = (capabilityId, inputContract, outputContract, extra = {}) => ({ capabilityId, agentType: 'ai', version: '1', displayName: capabilityId, summary: 's', inputContract, outputContract, ...extra });

const REFERENCE = [
  reg('StrategyManagerAgent.briefing', ['objectiveBrief', 'audienceProfile', 'toneOfVoice', 'assetBundle'], ['writerBrief', 'planKnobs', 'strategicRationale']),
  reg('ContentGeneratorAgent.linkedinVariants', ['writerBrief', 'planKnobs', 'toneOfVoice', 'audienceProfile'], ['copyVariants']),
  reg('QualityAssuranceAgent.contentReview', ['copyVariants', 'writerBrief', 'qaRubric'], ['qaFindings', 'recommendationSet']),
];

module.exports = { reg, REFERENCE };
