import { clause, sentences } from './text';

/** What one variant should lead with, e.g. `{ label: 'A', focus: 'team culture' }`. */
export interface VariantDirection {
  label: string;
  focus: string;
}

/** Special instructions sorted by what they ask for. */
export interface ReadInstructions {
  directions: VariantDirection[];
  /** Things to bring out in every variant ("Highlight the new audit trail"). */
  highlights: string[];
  /** Things to avoid or rules to keep, as written. */
  constraints: string[];
  /** An explicit variant count ("two variants", "3 variants"), if any. */
  variantCount?: number;
  length?: 'short' | 'medium' | 'long';
}

const VARIANT =
  /^\s*(?:the\s+)?(?:variant|version|option|post)\s+(?:#\s*)?([A-Za-z]|\d{1,2})\b\s*(?:[:\-–—]\s*)?(?:should|must|will|can|to|is to)?\s*(?:highlight|focus on|focus|emphasi[sz]e|feature|showcase|cover|lead with|be about|talk about|speak to|cent(?:er|re) on|stress|spotlight|celebrate|promote|tell)?\s*(.+)$/i;
const HIGHLIGHT =
  /^\s*(?:please\s+)?(?:highlight|emphasi[sz]e|feature|showcase|mention|spotlight|stress|focus on|lead with)\s+(.+)$/i;
const CONSTRAINT =
  /^\s*(?:please\s+)?(?:avoid|don['’]?t|do not|never|no|without|keep|stay|limit|use only|only|must not|refrain)\b/i;
const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, single: 1 };
const COUNT =
  /\b(one|two|three|four|five|single|[1-9])\s+(?:distinct\s+|different\s+|linkedin\s+|post\s+)*(?:variants?|versions?|options|posts)\b/i;

/** Reads special instructions (and the objective, for counts and length) into directions and rules. */
export function readInstructions(
  specialInstructions: readonly string[] = [],
  objective = '',
): ReadInstructions {
  const out: ReadInstructions = { directions: [], highlights: [], constraints: [] };
  for (const sentence of specialInstructions.flatMap((s) => sentences(s))) {
    const variant = VARIANT.exec(sentence);
    if (variant && clause(variant[2]).length > 0) {
      const label = variant[1].toUpperCase();
      if (!out.directions.some((d) => d.label === label))
        out.directions.push({ label, focus: focusOf(variant[2]) });
    } else if (HIGHLIGHT.test(sentence)) {
      addOnce(out.highlights, clause((HIGHLIGHT.exec(sentence) as RegExpExecArray)[1]));
    } else if (CONSTRAINT.test(sentence)) {
      addOnce(out.constraints, `${clause(sentence)}.`);
    }
  }
  out.directions.sort((a, b) => order(a.label) - order(b.label));
  const all = [objective, ...specialInstructions].join(' ');
  const count = COUNT.exec(all);
  if (count) out.variantCount = NUMBER_WORDS[count[1].toLowerCase()] ?? Number(count[1]);
  if (/\b(short|concise|brief|punchy|snappy)\b/i.test(specialInstructions.join(' '))) out.length = 'short';
  else if (/\b(long-form|detailed|in-depth|thorough|long)\b/i.test(specialInstructions.join(' ')))
    out.length = 'long';
  return out;
}

/** "the company's team culture." → "the company's team culture"; drops a leading "on"/"the" left by the verb. */
function focusOf(text: string): string {
  return clause(text).replace(/^(?:on|about|the)\s+/i, '');
}

function addOnce(list: string[], item: string): void {
  if (!list.includes(item)) list.push(item);
}

function order(label: string): number {
  return /^\d+$/.test(label) ? Number(label) : label.charCodeAt(0) - 64;
}

/** The same direction, written back as a constraint a writer reads: "Variant A should highlight team culture." */
export function directionSentence(direction: VariantDirection): string {
  return `Variant ${direction.label} should highlight ${direction.focus}.`;
}
