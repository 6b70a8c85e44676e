/** TypeScript shapes of the catalog facets the reference agents read and write (libs/contracts facet catalog). */

export interface ObjectiveBrief {
  objective: string;
  successCriteria?: string[];
}

export interface AudienceProfile {
  persona: string;
  segments: string[];
  regions?: string[];
}

export type ToneOfVoice =
  | 'friendly'
  | 'professional'
  | 'inspiring'
  | 'confident'
  | 'supportive'
  | 'playful'
  | 'authoritative'
  | 'empathetic'
  | 'bold'
  | 'formal'
  | 'casual';

export type AssetBundle = Array<{ type: string; payload: Record<string, unknown> }>;

export interface WriterBrief {
  angle: string;
  keyPoints: string[];
  constraints: string[];
}

export interface PlanKnobs {
  variantCount?: number;
  ctaFocus?: string;
  length?: 'short' | 'medium' | 'long';
}

export interface StrategicRationale {
  northStar: string;
  whyItWorks: string;
  risks?: string[];
}

export interface CopyVariant {
  headline: string;
  body: string;
  callToAction: string;
}

export type QaCheck =
  | 'readability'
  | 'clarity'
  | 'objective_fit'
  | 'policy_risk'
  | 'brand_voice'
  | 'tone_alignment'
  | 'cta_presence'
  | 'compliance';

export type Severity = 'low' | 'medium' | 'high';

export interface QaRubric {
  checks: QaCheck[];
  thresholds: Partial<Record<QaCheck | 'overall', number>>;
}

export interface QaIssue {
  check: QaCheck;
  severity: Severity;
  message: string;
  variantIndex?: number;
}

export interface QaFindings {
  overallScore: number;
  scores: Partial<Record<QaCheck, number>>;
  issues: QaIssue[];
  overallStatus: 'pass' | 'needs_revision' | 'fail';
}

export interface Recommendation {
  severity: Severity;
  recommendation: string;
  rationale: string;
}
