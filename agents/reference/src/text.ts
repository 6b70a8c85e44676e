/** Small, deterministic text helpers shared by the reference agents (no randomness, no clock). */
import { codePointLength, truncateCodePoints } from '@flex/agent-sdk';

const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can do for from has have how i if in into is it its just of on or our so than that the their them ' +
    'they this to up us was we what when where which who why will with you your yours more most about over also should must not no'
  ).split(' '),
);

/** Words as written (letters, digits, inner apostrophes and hyphens). */
export function words(text: string): string[] {
  return text.match(/[A-Za-z0-9]+(?:['’-][A-Za-z0-9]+)*/g) ?? [];
}

/** Sentences: split after . ! ? (or a line break) followed by space. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => words(s).length > 0);
}

/** A crude stem, good enough to match "growing"/"growth"/"grows" loosely and "engineers"/"engineer" exactly. */
export function stem(word: string): string {
  const w = word.toLowerCase().replace(/['’]s$/, '');
  for (const suffix of ['ations', 'ation', 'ments', 'ment', 'ings', 'ing', 'ies', 'ed', 'es', 'ly', 's']) {
    if (w.length - suffix.length >= 4 && w.endsWith(suffix))
      return suffix === 'ies' ? `${w.slice(0, -3)}y` : w.slice(0, -suffix.length);
  }
  return w;
}

/** The stems of a text's content words (stopwords and one-letter words dropped). */
export function keywords(text: string): Set<string> {
  return new Set(
    words(text)
      .filter((w) => w.length > 1 && !STOPWORDS.has(w.toLowerCase()))
      .map(stem),
  );
}

/** Share of `wanted` present in `have` (1 when nothing is wanted). */
export function coverage(wanted: ReadonlySet<string>, have: ReadonlySet<string>): number {
  if (wanted.size === 0) return 1;
  let hit = 0;
  for (const k of wanted) if (have.has(k)) hit++;
  return hit / wanted.size;
}

/** FNV-1a: a stable small hash to pick among phrasings deterministically. */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export function pick<T>(options: readonly T[], seed: number): T {
  return options[seed % options.length];
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Lower-case the first letter unless the first word looks like a name or acronym. */
export function decapitalize(text: string): string {
  const first = words(text)[0] ?? '';
  if (first.length > 1 && (first === first.toUpperCase() || /[A-Z]/.test(first.slice(1)))) return text;
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** Trim, collapse whitespace and drop trailing punctuation. */
export function clause(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.;:,!?]+$/, '');
}

/**
 * Cut to at most `max` code points (what JSON Schema's `maxLength` counts), at a word boundary when
 * one is near, never inside a surrogate pair.
 */
export function truncate(text: string, max: number): string {
  if (codePointLength(text) <= max) return text;
  if (max < 2) return truncateCodePoints(text, max);
  const cut = truncateCodePoints(text, max - 1);
  const space = cut.lastIndexOf(' ');
  const kept = (space > cut.length / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, '');
  return `${kept}…`;
}

/** "camelCase" / "snake_case" keys as words: "recentEvent" → "recent event". */
export function humanizeKey(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
}

/** "a, b and c". */
export function joinList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** "a" or "an" before `word` (by its first letter, good enough for tone names). */
export function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

const PREPOSITION = /\s(?:of|at|in|for|from|with|who|that|on)\s/i;

/**
 * An audience as a plural group: "job seeker" → "job seekers", "Head of marketing" → "heads of
 * marketing"; already plural (or unclear) stays as written.
 */
export function audienceNoun(persona: string): string {
  const text = decapitalize(clause(persona));
  const cut = PREPOSITION.exec(text);
  const head = cut ? text.slice(0, cut.index) : text;
  const rest = cut ? text.slice(cut.index) : '';
  const last = words(head).pop() ?? '';
  if (!last || /s$/i.test(last) || /people|staff|folks|team|audience$/i.test(last)) return text;
  const plural = /[^aeiou]y$/i.test(last)
    ? `${last.slice(0, -1)}ies`
    : /(x|z|ch|sh)$/i.test(last)
      ? `${last}es`
      : `${last}s`;
  return `${head.slice(0, head.length - last.length)}${plural}${rest}`;
}
