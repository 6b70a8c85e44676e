/** Two strings a pattern may match: with every optional part left out, and with each taken once. */
export interface PatternSamples {
  readonly least: string;
  readonly most: string;
}

type Read = { readonly samples: PatternSamples; readonly next: number } | undefined;

// Samples longer than this are not built (nested repeats grow fast): the pattern is then not followed.
const MAX_SAMPLE_LENGTH = 10_000;
const CLASS_SAMPLE: Readonly<Record<string, string>> = { d: '0', D: 'a', w: 'a', W: '-', s: ' ', S: 'a' };

/**
 * Strings built from a simple regular expression (literals, escapes, classes, groups, `|`, and
 * the quantifiers `? * + {n,m}`), as candidates for a witness: they are checked against the
 * schema afterwards, so a wrong guess costs a candidate, not a wrong answer. `undefined` for what
 * this reader does not follow (lookarounds, back-references).
 */
export function patternSamples(source: string): PatternSamples | undefined {
  const read = readAlternatives(source, 0);
  return read !== undefined && read.next === source.length ? read.samples : undefined;
}

function readAlternatives(source: string, start: number): Read {
  let first: PatternSamples | undefined;
  let at = start;
  for (;;) {
    const branch = readSequence(source, at);
    if (branch === undefined) return undefined;
    first ??= branch.samples;
    if (source[branch.next] !== '|') return { samples: first, next: branch.next };
    at = branch.next + 1;
  }
}

function readSequence(source: string, start: number): Read {
  let least = '';
  let most = '';
  let at = start;
  while (at < source.length && source[at] !== '|' && source[at] !== ')') {
    const atom = readAtom(source, at);
    if (atom === undefined) return undefined;
    const quantified = quantify(source, atom.next, atom.samples);
    if (quantified === undefined) return undefined;
    const [low, high, next] = quantified;
    least += low;
    most += high;
    at = next;
  }
  return { samples: { least, most }, next: at };
}

function readAtom(source: string, at: number): Read {
  const char = source[at];
  const plain = (text: string, next = at + 1): Read => ({ samples: { least: text, most: text }, next });
  if (char === '^' || char === '$') return plain('');
  if (char === '.') return plain('a');
  if (char === '\\') return readEscape(source, at);
  if (char === '[') return readClass(source, at);
  if (char !== '(') return '*+?{'.includes(char) ? undefined : plain(char);
  if (
    source.startsWith('(?=', at) ||
    source.startsWith('(?!', at) ||
    source.startsWith('(?<=', at) ||
    source.startsWith('(?<!', at)
  )
    return undefined;
  const named = /^\(\?<[A-Za-z_][A-Za-z0-9_]*>/.exec(source.slice(at))?.[0].length;
  const body = named ?? (source.startsWith('(?:', at) ? 3 : 1);
  const inner = readAlternatives(source, at + body);
  return inner === undefined || source[inner.next] !== ')'
    ? undefined
    : { samples: inner.samples, next: inner.next + 1 };
}

function readEscape(source: string, at: number): Read {
  const char = source[at + 1];
  if (char === undefined || /[1-9kpPux]/.test(char)) return undefined;
  const text =
    char === 'b' || char === 'B'
      ? ''
      : (CLASS_SAMPLE[char] ?? ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[char] ?? char);
  return { samples: { least: text, most: text }, next: at + 2 };
}

function readClass(source: string, at: number): Read {
  let end = at + 1;
  while (end < source.length && source[end] !== ']') end += source[end] === '\\' ? 2 : 1;
  if (end >= source.length) return undefined;
  const body = source.slice(at + 1, end);
  const text = body.startsWith('^')
    ? outside(body)
    : body.startsWith('\\')
      ? (CLASS_SAMPLE[body[1]] ?? body[1])
      : body[0];
  return text === undefined ? undefined : { samples: { least: text, most: text }, next: end + 1 };
}

function outside(negated: string): string | undefined {
  return ['a', 'z', '0', '_', 'Q', ' '].find(
    (c) => !negated.includes(c) && !(c === 'a' && /a-|-z/.test(negated)),
  );
}

function quantify(source: string, at: number, samples: PatternSamples): [string, string, number] | undefined {
  const char = source[at];
  const lazy = (next: number): number => (source[next] === '?' ? next + 1 : next);
  if (char === '?') return ['', samples.most, lazy(at + 1)];
  if (char === '*') return ['', samples.most, lazy(at + 1)];
  if (char === '+') return [samples.least, samples.most, lazy(at + 1)];
  const braces = char === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at)) : null;
  if (braces === null) return [samples.least, samples.most, at];
  const low = Number(braces[1]);
  const high = braces[2] === undefined ? low : braces[3] === '' ? low + 1 : Number(braces[3]);
  const times = Math.min(high, low + 1);
  if (samples.most.length * times > MAX_SAMPLE_LENGTH) return undefined;
  return [samples.least.repeat(low), samples.most.repeat(times), lazy(at + braces[0].length)];
}
