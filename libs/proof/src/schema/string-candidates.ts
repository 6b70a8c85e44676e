import { lowerBound, upperBound } from './bounds';
import type { Conjunct } from './conjunct';
import { patternSamples } from './pattern-sample';

/** One value per string format ajv-formats knows, for witnesses; checked against the schema afterwards. */
export const FORMAT_SAMPLES: Readonly<Record<string, string>> = {
  date: '2024-01-31',
  time: '12:00:00Z',
  'date-time': '2024-01-31T12:00:00Z',
  'iso-time': '12:00:00Z',
  'iso-date-time': '2024-01-31T12:00:00Z',
  duration: 'P1D',
  uri: 'https://example.com',
  'uri-reference': 'https://example.com',
  'uri-template': 'https://example.com/{id}',
  url: 'https://example.com',
  email: 'a@example.com',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  regex: 'a',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
  'json-pointer': '/a',
  'json-pointer-uri-fragment': '#/a',
  'relative-json-pointer': '0',
  byte: 'YQ==',
  password: 'a',
  binary: 'a',
};

// Longer strings are not built: a contract asking for them is left to runtime validation.
const MAX_BUILT_LENGTH = 1_000_000;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** The code-point length Ajv's `minLength` / `maxLength` count. */
export function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

/** The lengths the conjuncts allow: `[least, most]`, `most` possibly `Infinity`. */
export function lengthRange(conjuncts: readonly Conjunct[]): [number, number] {
  const least = Math.max(0, Math.ceil(lowerBound(conjuncts, 'minLength')?.value ?? 0));
  return [least, Math.floor(upperBound(conjuncts, 'maxLength')?.value ?? Infinity)];
}

/**
 * Strings worth trying for the conjuncts: samples of their first `pattern` and of their `format`s,
 * padded to the shortest allowed length, then `want` distinct plain strings of that length.
 */
export function stringCandidates(conjuncts: readonly Conjunct[], want: number): string[] {
  const [least, most] = lengthRange(conjuncts);
  if (least > MAX_BUILT_LENGTH || least > most) return [];
  const seeds: string[] = [];
  for (const { schema } of conjuncts) {
    const samples = typeof schema.pattern === 'string' ? patternSamples(schema.pattern) : undefined;
    if (samples) seeds.push(samples.least, samples.most);
    if (typeof schema.format === 'string' && FORMAT_SAMPLES[schema.format]) {
      seeds.push(FORMAT_SAMPLES[schema.format]);
    }
  }
  const padded = seeds.map((seed) => seed + 'a'.repeat(Math.max(0, least - codePointLength(seed))));
  const plain = Array.from({ length: Math.max(want, 2) }, (_, i) => plainString(i, least));
  return [...padded, ...plain].filter((text) => codePointLength(text) <= most);
}

/** The `index`-th string of length `length` (or one longer, once those run out) in letter order. */
function plainString(index: number, length: number): string {
  let digits = '';
  for (let rest = index; rest > 0; rest = Math.floor(rest / LETTERS.length))
    digits = LETTERS[rest % LETTERS.length] + digits;
  if (length === 0) return index === 0 ? '' : digits || 'a';
  return digits.length > length ? digits : 'a'.repeat(length - digits.length) + digits;
}
