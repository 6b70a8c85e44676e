import { clause, keywords, sentences } from './text';

/** A phrase a reviewer would flag, and why. */
export interface RiskyClaim {
  pattern: RegExp;
  reason: string;
  severity: 'medium' | 'high';
}

/** Claims that create legal, trust or policy risk in public copy. */
export const RISKY_CLAIMS: readonly RiskyClaim[] = [
  {
    pattern: /\bguarantee[sd]?\b|\bguaranteeing\b/i,
    reason: 'promises a guaranteed outcome',
    severity: 'high',
  },
  {
    pattern: /\b100\s?%|\bzero risk\b|\brisk[- ]free\b|\bno risk\b/i,
    reason: 'claims certainty or zero risk',
    severity: 'high',
  },
  {
    pattern:
      /\breplac\w*\s+(?:\w+\s+){0,2}(?:humans?|people|reviewers?|staff|employees|workers|teams?|jobs?)\b/i,
    reason: 'claims to replace people',
    severity: 'high',
  },
  {
    pattern:
      /\bnever (?:fails?|breaks?|miss(?:es)?)\b|\bflawless(?:ly)?\b|\bperfect (?:accuracy|record|results?|safety|security|compliance)\b/i,
    reason: 'claims infallibility',
    severity: 'high',
  },
  {
    pattern: /\b(?:number one|#1|no\.\s?1)\b|#1\b/i,
    reason: 'unsupported ranking claim',
    severity: 'medium',
  },
  {
    pattern:
      /\b(?:the )?(?:best|greatest|fastest|cheapest|leading|top)\s+(?:\w+\s+){0,2}(?:in the world|on the market|ever|in the industry)\b|\bworld'?s (?:best|first|leading)\b/i,
    reason: 'unsupported superlative',
    severity: 'medium',
  },
  {
    pattern:
      /\b(?:unbeatable|unmatched|unrivall?ed|revolutionary|game[- ]chang\w+|best[- ]in[- ]class|industry[- ]leading)\b/i,
    reason: 'hype superlative',
    severity: 'medium',
  },
  {
    pattern:
      /\b(?:double|triple|10x|tenfold)\s+(?:your\s+)?(?:revenue|salary|income|profits?|productivity)\b/i,
    reason: 'unsupported performance promise',
    severity: 'high',
  },
];

export interface ClaimHit {
  reason: string;
  severity: 'medium' | 'high';
  match: string;
}

/** Every risky phrase in `text`, each distinct phrase once. */
export function findRiskyClaims(text: string): ClaimHit[] {
  const hits: ClaimHit[] = [];
  const seen = new Set<string>();
  for (const claim of RISKY_CLAIMS) {
    for (const m of text.matchAll(new RegExp(claim.pattern.source, 'gi'))) {
      const key = m[0].toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      hits.push({ reason: claim.reason, severity: claim.severity, match: m[0] });
    }
  }
  return hits;
}

const AVOID =
  /^\s*(?:please\s+)?(?:avoid|don['’]?t|do not|never|no|without|must not|refrain from)\s+(?:any\s+)?(?:claims?\s+(?:about|that|of)\s+|mention(?:ing|s)?\s+(?:of\s+)?|talking about\s+|using\s+|making\s+|saying\s+)?(.+)$/i;

/** The topic a prohibitive constraint names ("Avoid claims about replacing human reviewers." → "replacing human reviewers"). */
export function forbiddenTopic(constraint: string): string | undefined {
  const m = AVOID.exec(clause(constraint));
  return m ? clause(m[1]) : undefined;
}

/**
 * True when one sentence of `text` touches a forbidden topic: it holds every content word of a
 * short topic, or at least two thirds of a longer one.
 */
export function breaksConstraint(text: string, constraint: string): boolean {
  const topic = forbiddenTopic(constraint);
  if (!topic) return false;
  const wanted = keywords(topic);
  if (wanted.size === 0) return false;
  const need = wanted.size <= 2 ? wanted.size : Math.ceil((wanted.size * 2) / 3);
  return sentences(text).some((s) => {
    const have = keywords(s);
    let hit = 0;
    for (const k of wanted) if (have.has(k)) hit++;
    return hit >= need;
  });
}
