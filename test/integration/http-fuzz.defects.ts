import fc from 'fast-check';
import type { Draft, Endpoint } from './http-fuzz.requests';

/**
 * What can be wrong with a request, as data (so fast-check prints and shrinks it). Each defect
 * makes the request a bad one wherever `certain` says so: it must then be answered with a 4xx.
 */
export type Defect =
  | { kind: 'token'; authorization: string | null }
  | { kind: 'role'; role: 'client' | 'operator' | 'agent' }
  | { kind: 'method'; method: 'PUT' | 'PATCH' | 'DELETE' }
  | { kind: 'path_param'; value: string }
  | { kind: 'duplicate_query'; key: string }
  | { kind: 'bad_query'; raw: string }
  | { kind: 'huge_header'; size: number }
  | { kind: 'invalid_utf8'; bytes: readonly number[]; at: number }
  | { kind: 'unstorable'; escape: string; at: number }
  | { kind: 'deep'; depth: number; open: '[' | '{"a":' }
  | { kind: 'too_large'; size: number }
  | { kind: 'truncated'; keep: number }
  | { kind: 'not_json_value'; insert: string }
  | { kind: 'wrong_type'; at: number; value: unknown };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const BODY_LIMIT = 1024 * 1024 + 64 * 1024;

/** Body defects that write a whole new body: what an earlier body defect did is gone after one. */
const REPLACES_BODY: ReadonlySet<Defect['kind']> = new Set(['deep', 'too_large', 'wrong_type']);
const SPOILS_BODY: ReadonlySet<Defect['kind']> = new Set([
  'invalid_utf8',
  'unstorable',
  'deep',
  'too_large',
  'truncated',
  'not_json_value',
  'wrong_type',
]);

/** Defects that set the Authorization header: only the last one applied is in the request. */
const SETS_AUTHORIZATION: ReadonlySet<Defect['kind']> = new Set(['token', 'role']);

/**
 * The defects still in the request once all are applied in order: a new body undoes earlier body
 * defects, and only the last of the defects that set the Authorization header stands.
 */
export function surviving(defects: readonly Defect[]): Defect[] {
  const lastOf = (kinds: ReadonlySet<Defect['kind']>) =>
    defects.reduce((last, d, i) => (kinds.has(d.kind) ? i : last), -1);
  const lastBody = lastOf(REPLACES_BODY);
  const lastAuth = lastOf(SETS_AUTHORIZATION);
  return defects.filter(
    (d, i) =>
      (i >= lastBody || !SPOILS_BODY.has(d.kind)) && (i === lastAuth || !SETS_AUTHORIZATION.has(d.kind)),
  );
}

/** Whether `defect` alone must make `endpoint` answer with a 4xx. */
export function certain(defect: Defect, endpoint: Endpoint): boolean {
  const secured = endpoint.roles.length > 0;
  const post = endpoint.method === 'POST';
  switch (defect.kind) {
    case 'token':
      return secured;
    case 'role':
      return secured && !endpoint.roles.includes(defect.role);
    case 'path_param':
      return endpoint.pathParams.length > 0;
    case 'method':
    case 'duplicate_query':
    case 'bad_query':
    case 'huge_header':
      return true;
    case 'invalid_utf8':
    case 'unstorable':
    case 'deep':
    case 'too_large':
    case 'truncated':
    case 'not_json_value':
      return post;
    case 'wrong_type':
      return post && endpoint.example !== undefined;
  }
}

/** Every kind of defect, with the values a hostile client would pick. */
export const defectArb: fc.Arbitrary<Defect> = fc.oneof(
  fc.record({
    kind: fc.constant('token' as const),
    authorization: fc.constantFrom(
      null,
      'Bearer',
      'Basic dXNlcjpwYXNz',
      'Bearer not-a-real-token',
      'bearer ',
    ),
  }),
  fc.record({ kind: fc.constant('role' as const), role: fc.constantFrom('client', 'operator', 'agent') }),
  fc.record({ kind: fc.constant('method' as const), method: fc.constantFrom('PUT', 'PATCH', 'DELETE') }),
  fc.record({
    kind: fc.constant('path_param' as const),
    value: fc.oneof(
      fc.constantFrom(
        '%00',
        '%ED%A0%80',
        '%ZZ',
        '%F0%9F%98%80',
        'a%2Fb',
        '..',
        'run_unknown',
        'x'.repeat(3_000),
      ),
      fc.string({ minLength: 1, maxLength: 40 }).map((s) => `${encodeURIComponent(s)}%00`),
    ),
  }),
  fc.record({
    kind: fc.constant('duplicate_query' as const),
    key: fc.constantFrom('limit', 'status', 'x', '__proto__', 'a[b]'),
  }),
  fc.record({
    kind: fc.constant('bad_query' as const),
    raw: fc.constantFrom('status=%00', 'status=%ED%A0%80', 'x=%ZZ', 'x=%E0%A4%A', '%C0%AF=1'),
  }),
  fc.record({ kind: fc.constant('huge_header' as const), size: fc.integer({ min: 17_000, max: 40_000 }) }),
  fc.record({
    kind: fc.constant('invalid_utf8' as const),
    bytes: fc.constantFrom(
      [0xff],
      [0x80],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xe2, 0x82],
      [0xf8, 0x88, 0x80],
    ),
    at: fc.nat(),
  }),
  fc.record({
    kind: fc.constant('unstorable' as const),
    escape: fc.constantFrom('\\u0000', '\\ud800', '\\udfff', '\\udbff\\u0041'),
    at: fc.nat(),
  }),
  fc.record({
    kind: fc.constant('deep' as const),
    depth: fc.oneof(fc.integer({ min: 129, max: 2_000 }), fc.constant(50_000)),
    open: fc.constantFrom('[' as const, '{"a":' as const),
  }),
  fc.record({
    kind: fc.constant('too_large' as const),
    size: fc.integer({ min: BODY_LIMIT + 1, max: 1_600_000 }),
  }),
  fc.record({ kind: fc.constant('truncated' as const), keep: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({
    kind: fc.constant('not_json_value' as const),
    insert: fc.constantFrom('"__proto__":{"polluted":true},', '"n":1e400,', '"m":-1e999,'),
  }),
  fc.record({
    kind: fc.constant('wrong_type' as const),
    at: fc.nat(),
    value: fc.constantFrom(0, -1.5, 'x', '', true, null, [], {}, [[]], { a: 1 }),
  }),
);

/** `draft` spoiled by `defect`. */
export function spoil(draft: Draft, defect: Defect): Draft {
  switch (defect.kind) {
    case 'token':
      return { ...draft, authorization: defect.authorization };
    case 'role':
      return { ...draft, authorization: `Bearer fuzz-${defect.role}-token` };
    case 'method':
      return { ...draft, method: defect.method };
    case 'path_param':
      return { ...draft, pathValues: mapValues(draft.pathValues, () => defect.value) };
    case 'duplicate_query':
      return { ...draft, query: [...draft.query, `${defect.key}=1`, `${defect.key}=2`] };
    case 'bad_query':
      return { ...draft, query: [...draft.query, defect.raw] };
    case 'huge_header':
      return { ...draft, headers: [...draft.headers, ['X-Padding', 'p'.repeat(defect.size)]] };
    default: {
      const original = Buffer.from(draft.original ?? bodyOf(draft));
      const from = defect.kind === 'wrong_type' ? original : bodyOf(draft);
      return { ...draft, body: spoilBody(from, defect), original };
    }
  }
}

function spoilBody(body: Buffer, defect: Defect): Buffer {
  switch (defect.kind) {
    case 'invalid_utf8':
      return insertInString(body, defect.at, Buffer.from(defect.bytes));
    case 'unstorable':
      return insertInString(body, defect.at, Buffer.from(defect.escape));
    case 'deep': {
      const close = defect.open === '[' ? ']' : '}';
      return Buffer.from(
        `${defect.open.repeat(defect.depth)}${defect.open === '[' ? '' : '1'}${close.repeat(defect.depth)}`,
      );
    }
    case 'too_large':
      return Buffer.from(`{"pad":"${'a'.repeat(defect.size)}"}`);
    case 'truncated':
      return body.subarray(0, 1 + Math.floor(defect.keep * Math.max(0, body.length - 2)));
    case 'not_json_value':
      return Buffer.concat([Buffer.from(`{${defect.insert}`), body.subarray(1)]);
    case 'wrong_type':
      return Buffer.from(JSON.stringify(withWrongType(body, defect.at, defect.value)));
    default:
      return body;
  }
}

/** The draft's body, or an object with one string when it has none (a body defect needs a body). */
function bodyOf(draft: Draft): Buffer {
  return draft.body && draft.body.length > 1 && draft.body[0] === 0x7b
    ? Buffer.from(draft.body)
    : Buffer.from('{"note":"text"}');
}

/** Insert `bytes` just inside the opening quote of the (at mod n)-th string of a JSON text. */
function insertInString(json: Buffer, at: number, bytes: Buffer): Buffer {
  const opening: number[] = [];
  let inString = false;
  for (let i = 0; i < json.length; i += 1) {
    if (inString && json[i] === BACKSLASH) i += 1;
    else if (json[i] === QUOTE) {
      if (!inString) opening.push(i);
      inString = !inString;
    }
  }
  const cut = opening[at % opening.length] + 1;
  return Buffer.concat([json.subarray(0, cut), bytes, json.subarray(cut)]);
}

/**
 * `value` with its (at mod n)-th member (depth first) replaced by `replacement`, or by a string
 * when `replacement` has the member's own type: the member always changes type.
 */
function replaceAt(value: unknown, at: number, replacement: unknown): unknown {
  const slots: Array<{ old: unknown; set: (v: unknown) => void }> = [];
  const visit = (node: unknown) => {
    if (Array.isArray(node))
      node.forEach((item, i) => {
        slots.push({ old: item, set: (v) => (node[i] = v) });
        visit(item);
      });
    else if (typeof node === 'object' && node !== null)
      for (const [key, item] of Object.entries(node)) {
        slots.push({
          old: item,
          set: (v) => Object.defineProperty(node, key, { value: v, enumerable: true }),
        });
        visit(item);
      }
  };
  visit(value);
  if (slots.length === 0) return replacement;
  const slot = slots[at % slots.length];
  // A boolean where an object was is a valid JSON Schema (`true` accepts anything) when that
  // object was a subschema: use a string there, which no schema position accepts.
  const schemaSafe =
    typeof replacement === 'boolean' && isObject(slot.old) ? 'a different type' : replacement;
  slot.set(
    sameType(schemaSafe, slot.old) ? (typeof slot.old === 'string' ? 0 : 'a different type') : schemaSafe,
  );
  return value;
}

const sameType = (a: unknown, b: unknown) =>
  typeof a === typeof b && Array.isArray(a) === Array.isArray(b) && (a === null) === (b === null);

const mapValues = (record: Record<string, string>, f: (v: string) => string) =>
  Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v)]));

/**
 * The body with one value replaced by `value`; a body the harness cannot walk (not JSON after an
 * earlier defect, or nested past the stack: a `deep` one) is replaced whole.
 */
function withWrongType(body: Buffer, at: number, value: unknown): unknown {
  try {
    return replaceAt(JSON.parse(body.toString('utf8')), at, value);
  } catch {
    return value;
  }
}

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);
