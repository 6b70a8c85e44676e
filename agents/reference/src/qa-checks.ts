import { breaksConstraint, findRiskyClaims } from './claims';
import type { CopyVariant, QaCheck, Severity, WriterBrief } from './facet-values';
import { coverage, keywords, sentences, words } from './text';

/** Something one check found in one variant, and the edit that would fix it. */
export interface Problem {
  severity: Severity;
  message: string;
  fix: string;
}

export interface CheckResult {
  score: number;
  problems: Problem[];
}

type Check = (variant: CopyVariant, brief: WriterBrief) => CheckResult;

const JARGON =
  /\b(synerg\w*|leverag\w*|paradigm|disrupt\w*|utili[sz]e\w*|holistic|best[- ]of[- ]breed|cutting[- ]edge|world[- ]class|robust|seamless\w*|very|really|basically|actually|literally)\b/gi;
const ACTION_VERB =
  /^(apply|join|book|register|save|read|learn|explore|discover|follow|share|tell|start|try|download|sign|get|see|watch|visit|contact|ask|reply|comment|meet|talk|request|reserve|subscribe|come|check|find)\b/i;
const GENERIC_CTA = /^(click here|learn more|read more|more info|see more|find out more)\.?$/i;

const clamp01 = (n: number) => Math.round(Math.min(1, Math.max(0, n)) * 1000) / 1000;
const textOf = (v: CopyVariant) => `${v.headline}. ${v.body}`;

/** Sentence length and word length, the two things readability formulas rest on. */
const readability: Check = (v) => {
  const ws = words(v.body);
  const sentenceCount = Math.max(1, sentences(v.body).length);
  const perSentence = ws.length / sentenceCount;
  const letters = ws.reduce((n, w) => n + w.length, 0) / Math.max(1, ws.length);
  const longShare = ws.filter((w) => w.length >= 13).length / Math.max(1, ws.length);
  const problems: Problem[] = [];
  if (perSentence > 22)
    problems.push({
      severity: perSentence > 32 ? 'high' : 'medium',
      message: `sentences average ${perSentence.toFixed(0)} words`,
      fix: 'Split long sentences so they average 20 words or fewer.',
    });
  if (letters > 5.8)
    problems.push({
      severity: 'medium',
      message: `words average ${letters.toFixed(1)} letters`,
      fix: 'Swap long or technical words for shorter everyday ones.',
    });
  const penalty =
    0.55 * Math.min(1, Math.max(0, (perSentence - 18) / 22)) +
    0.3 * Math.min(1, Math.max(0, (letters - 5) / 2.5)) +
    0.15 * Math.min(1, longShare * 5);
  return { score: clamp01(1 - penalty), problems };
};

/** A scannable headline, a body of post length, no filler or jargon, no shouting. */
const clarity: Check = (v) => {
  const problems: Problem[] = [];
  const headlineWords = words(v.headline).length;
  const bodyWords = words(v.body).length;
  if (headlineWords < 3 || headlineWords > 14)
    problems.push({
      severity: 'low',
      message: `headline has ${headlineWords} words`,
      fix: 'Write a headline of 3 to 14 words that names the topic.',
    });
  if (bodyWords < 25)
    problems.push({
      severity: 'medium',
      message: `body has only ${bodyWords} words`,
      fix: 'Give the body enough substance: at least 25 words with one concrete fact.',
    });
  if (bodyWords > 300)
    problems.push({
      severity: 'low',
      message: `body has ${bodyWords} words`,
      fix: 'Trim the body below 300 words; LinkedIn truncates long posts.',
    });
  const jargon = [...new Set((textOf(v).match(JARGON) ?? []).map((w) => w.toLowerCase()))];
  if (jargon.length > 0)
    problems.push({
      severity: jargon.length > 2 ? 'medium' : 'low',
      message: `filler or jargon: ${jargon.join(', ')}`,
      fix: 'Replace filler and jargon with specific, plain words.',
    });
  const shouting =
    (textOf(v).match(/\b[A-Z]{4,}\b/g) ?? []).length + (textOf(v).match(/!{2,}/g) ?? []).length;
  if (shouting > 0)
    problems.push({
      severity: 'low',
      message: 'shouting (all caps or repeated exclamation marks)',
      fix: 'Drop all-caps words and repeated exclamation marks.',
    });
  const penalty =
    (headlineWords < 3 || headlineWords > 14 ? 0.15 : 0) +
    (bodyWords < 25 ? 0.3 : 0) +
    (bodyWords > 300 ? 0.15 : 0) +
    Math.min(0.3, jargon.length * 0.08) +
    Math.min(0.2, shouting * 0.1);
  return { score: clamp01(1 - penalty), problems };
};

/** How much of the brief's angle and key points the copy carries. */
const objectiveFit: Check = (v, brief) => {
  const have = keywords(`${textOf(v)} ${v.callToAction}`);
  const angle = coverage(keywords(brief.angle), have);
  const points = brief.keyPoints.filter((p) => !/^success criterion:/i.test(p));
  const pointCover =
    points.length === 0
      ? 1
      : points.reduce((n, p) => n + Math.min(1, coverage(keywords(p), have) / 0.5), 0) / points.length;
  const score = clamp01((0.5 * angle + 0.5 * pointCover) / 0.65);
  const problems: Problem[] =
    score < 0.6
      ? [
          {
            severity: score < 0.35 ? 'high' : 'medium',
            message: `copy covers little of the brief (fit ${score.toFixed(2)})`,
            fix: "Lead with the brief's angle and use its key facts.",
          },
        ]
      : [];
  return { score, problems };
};

/** Risky claims: guarantees, certainty, superlatives, replacing people. 1 means none found. */
const policyRisk: Check = (v) => {
  const hits = findRiskyClaims(`${textOf(v)} ${v.callToAction}`);
  const problems = hits.map<Problem>((h) => ({
    severity: h.severity,
    message: `"${h.match}" ${h.reason}`,
    fix: `Remove or substantiate "${h.match}".`,
  }));
  return { score: clamp01(1 - hits.reduce((n, h) => n + (h.severity === 'high' ? 0.5 : 0.25), 0)), problems };
};

/** The brief's prohibitions ("Avoid …", "Do not …") kept. */
const compliance: Check = (v, brief) => {
  const broken = brief.constraints.filter((c) => breaksConstraint(`${textOf(v)} ${v.callToAction}`, c));
  const problems = broken.map<Problem>((c) => ({
    severity: 'high',
    message: `breaks the brief constraint "${c}"`,
    fix: `Rewrite to respect: ${c}`,
  }));
  return { score: clamp01(1 - 0.5 * broken.length), problems };
};

/** One specific call to action that starts with a verb. */
const ctaPresence: Check = (v) => {
  const cta = v.callToAction.trim();
  const n = words(cta).length;
  const problems: Problem[] = [];
  let score = n >= 2 && n <= 15 ? 0.6 : 0.2;
  if (ACTION_VERB.test(cta)) score += 0.4;
  else
    problems.push({
      severity: 'medium',
      message: 'call to action does not start with a verb',
      fix: 'Start the call to action with a clear verb (Apply, Register, Read…).',
    });
  if (GENERIC_CTA.test(cta)) {
    score -= 0.3;
    problems.push({
      severity: 'low',
      message: `generic call to action "${cta}"`,
      fix: 'Say what the reader gets by acting.',
    });
  }
  return { score: clamp01(score), problems };
};

const TONE_MARKERS: Record<string, RegExp> = {
  warm: /\b(you|your|we|us|love|hear|thanks|hello|together|let's|glad)\b|\?/gi,
  formal: /\b(practice|detail|approach|clear|consider|explain\w*|view)\b/gi,
  bold: /\b(imagine|picture|build|start|future|possible|drive\w*|great|beginning)\b/gi,
};
const TONE_FAMILY: Record<string, string> = {
  friendly: 'warm',
  supportive: 'warm',
  empathetic: 'warm',
  casual: 'warm',
  playful: 'warm',
  professional: 'formal',
  formal: 'formal',
  authoritative: 'formal',
  confident: 'formal',
  inspiring: 'bold',
  bold: 'bold',
};
const SLANG = /\b(gonna|wanna|awesome|lol|omg|super cool|crazy)\b/gi;

/** Markers of the brief's tone ("Write in a friendly tone."); slang counts against formal tones. */
const toneAlignment: Check = (v, brief) => {
  const tone = brief.constraints
    .map((c) => /\bin an? (\w+) tone\b/i.exec(c)?.[1]?.toLowerCase())
    .find(Boolean);
  const family = tone ? TONE_FAMILY[tone] : undefined;
  if (!family) return { score: 1, problems: [] };
  const text = `${textOf(v)} ${v.callToAction}`;
  const markers = (text.match(TONE_MARKERS[family]) ?? []).length;
  const slang = family === 'formal' ? (text.match(SLANG) ?? []).length : 0;
  const score = clamp01(0.5 + 0.5 * Math.min(1, markers / 2) - 0.2 * slang);
  const problems: Problem[] =
    score < 0.75
      ? [
          {
            severity: 'low',
            message: `little in the copy signals a ${tone} tone`,
            fix: `Adjust word choice toward a ${tone} tone.`,
          },
        ]
      : [];
  return { score, problems };
};

/** The brand shows (its name appears when the brief names it) and the copy does not overdo hashtags or emoji. */
const brandVoice: Check = (v, brief) => {
  const company = brief.keyPoints.map((p) => /^company:\s*(.+?)\.?$/i.exec(p)?.[1]).find(Boolean);
  const text = `${textOf(v)} ${v.callToAction}`;
  const problems: Problem[] = [];
  let score = 1;
  if (company && !text.toLowerCase().includes(company.toLowerCase())) {
    score -= 0.4;
    problems.push({
      severity: 'medium',
      message: `the company (${company}) is never named`,
      fix: `Name ${company} at least once.`,
    });
  }
  const hashtags = (text.match(/#\w+/g) ?? []).length;
  const emoji = (text.match(/\p{Extended_Pictographic}/gu) ?? []).length;
  if (hashtags > 5 || emoji > 3) {
    score -= 0.2;
    problems.push({
      severity: 'low',
      message: `${hashtags} hashtags and ${emoji} emoji`,
      fix: 'Keep to at most 5 hashtags and 3 emoji.',
    });
  }
  return { score: clamp01(score), problems };
};

export const CHECKS: Record<QaCheck, Check> = {
  readability,
  clarity,
  objective_fit: objectiveFit,
  policy_risk: policyRisk,
  compliance,
  cta_presence: ctaPresence,
  tone_alignment: toneAlignment,
  brand_voice: brandVoice,
};
