import type { z } from 'zod';

/**
 * Text Postgres refuses in a `jsonb` column: U+0000, and a UTF-16 surrogate without its partner
 * (what cutting a string inside an emoji leaves behind). JavaScript and JSON carry both happily.
 */
// eslint-disable-next-line no-control-regex -- finding U+0000 is the point
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** Nesting beyond this is not walked (values crossing a boundary are capped far below it). */
const MAX_DEPTH = 256;

/** Where a value holds text that cannot be stored, and what it is. */
export interface UnstorableText {
  path: PropertyKey[];
  message: string;
}

/** What is wrong with `text`, or `undefined` when Postgres can store it. */
export function unstorableTextReason(text: string): string | undefined {
  const found = UNSTORABLE.exec(text);
  if (!found) return undefined;
  const what =
    found[0] === '\u0000' ? 'U+0000 (a NUL character)' : 'an unpaired UTF-16 surrogate (a cut emoji?)';
  return `contains ${what} at index ${found.index}, which cannot be stored`;
}

/**
 * The first string (or object key) in `value` that cannot be stored, with its path, or
 * `undefined` when every one can. Pure and total: any value, any nesting.
 */
export function findUnstorableText(
  value: unknown,
  path: PropertyKey[] = [],
  depth = 0,
): UnstorableText | undefined {
  if (typeof value === 'string') {
    const message = unstorableTextReason(value);
    return message === undefined ? undefined : { path, message };
  }
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return undefined;
  const entries: Array<[PropertyKey, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value);
  for (const [key, child] of entries) {
    const keyReason = typeof key === 'string' ? unstorableTextReason(key) : undefined;
    if (keyReason !== undefined) return { path: [...path, key], message: `the key ${keyReason}` };
    const found = findUnstorableText(child, [...path, key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** `text` with every unstorable character replaced by U+FFFD: for messages recorded as they came. */
export function toStorableText(text: string): string {
  return text.replace(UNSTORABLE_ALL, '\uFFFD');
}

/** Adds a zod issue (code `unstorable_text`) at the first unstorable string of a parsed value. */
export function checkStorableText(value: unknown, ctx: z.RefinementCtx): void {
  const found = findUnstorableText(value);
  if (found)
    ctx.addIssue({
      code: 'custom',
      path: found.path,
      message: found.message,
      params: { code: 'unstorable_text' },
    });
}

/**
 * A JSON pointer (`/a/0/b`, RFC 6901) for a path: how output errors name places. Itself storable:
 * a key that is not shows with U+FFFD in place of what cannot be stored.
 */
export function toJsonPointer(path: readonly PropertyKey[]): string {
  const token = (segment: PropertyKey) =>
    toStorableText(String(segment)).replace(/~/g, '~0').replace(/\//g, '~1');
  return path.map((segment) => `/${token(segment)}`).join('') || '/';
}
