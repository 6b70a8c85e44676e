import { findUnstorableText } from '@flex/contracts';

/** A query string as the API reads it: each key once, its value a string. */
export type Query = Record<string, string>;

export interface QueryProblem {
  code: 'duplicate_query_parameter' | 'invalid_query';
  message: string;
  details: { path: string };
}

/**
 * Parse a raw query string (`a=1&b=2`, no `?`): `+` is a space, `%XX` escapes must be valid UTF-8,
 * a key may appear once (`?status=a&status=b` is ambiguous: which one did the caller mean?), and
 * no value may hold text Postgres cannot store. Keys are literal: `a[b]=1` is the key `a[b]`,
 * never a nested object. Total: any string gives a query or a problem, never an exception.
 */
export function parseQuery(raw: string): { ok: true; query: Query } | { ok: false; problem: QueryProblem } {
  const query = new Map<string, string>();
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decode(eq < 0 ? part : part.slice(0, eq));
    if (key === undefined)
      return refuse('invalid_query', `${shown(part)} is not valid percent-encoded UTF-8`, part.slice(0, 100));
    const value = decode(eq < 0 ? '' : part.slice(eq + 1));
    if (value === undefined)
      return refuse('invalid_query', `the value of ${shown(key)} is not valid percent-encoded UTF-8`, key);
    if (query.has(key))
      return refuse(
        'duplicate_query_parameter',
        `the query parameter ${shown(key)} appears more than once`,
        key,
      );
    const unstorable = findUnstorableText([key, value]);
    if (unstorable)
      return refuse('invalid_query', `the query parameter ${shown(key)}: ${unstorable.message}`, key);
    query.set(key, value);
  }
  // fromEntries defines own properties, so even a key named __proto__ stays a plain key.
  return { ok: true, query: Object.fromEntries(query) };
}

const shown = (key: string) => JSON.stringify(key.length > 100 ? `${key.slice(0, 100)}…` : key);

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function refuse(code: QueryProblem['code'], message: string, path: string) {
  return { ok: false as const, problem: { code, message, details: { path } } };
}
