/**
 * Reads a JSON Schema `pattern` (an ECMA-262 regular expression, `u` mode) and either rejects it
 * or rewrites it into RE2 syntax with the same meaning, so it can run on a linear-time engine.
 *
 * Rejected shapes are the ones a backtracking engine can take exponential time on: a repeated
 * group whose body holds a quantifier or an alternation (`(a+)+`, `(a|a)*`, `(x?){30}`),
 * backreferences and lookarounds. Flex itself never runs these on a backtracking engine, but
 * the caller's schema travels on to agents and browsers that may.
 */

export type PatternIssueCode = 'PATTERN_TOO_LONG' | 'INVALID_PATTERN' | 'UNSAFE_PATTERN';

export type PatternReading =
  | { readonly ok: true; readonly re2: string }
  | { readonly ok: false; readonly code: PatternIssueCode; readonly message: string };

/** Longest pattern accepted, in UTF-16 code units. */
export const MAX_PATTERN_LENGTH = 512;

// ECMAScript WhiteSpace and LineTerminator code points: what `\s` means in a JSON Schema pattern.
const WHITESPACE: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const hex = (cp: number): string => `\\x{${cp.toString(16).toUpperCase()}}`;
const range = ([lo, hi]: readonly [number, number]): string =>
  lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`;
const complement = (ranges: typeof WHITESPACE): Array<[number, number]> => {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  out.push([next, 0x10ffff]);
  return out;
};
const WS = WHITESPACE.map(range).join('');
const NOT_WS = complement(WHITESPACE).map(range).join('');
// Without the `s` flag, `.` excludes all four ECMAScript line terminators; RE2's `.` only excludes \n.
const DOT = '[^\\x{A}\\x{D}\\x{2028}\\x{2029}]';
const ANY = '\\x{0}-\\x{10FFFF}';
const SYNTAX = new Set('^$\\.*+?()[]{}|/-');
const CONTROL: Readonly<Record<string, number>> = { f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b };

class Unsafe extends Error {}

interface Frame {
  quantified: boolean;
  alternation: boolean;
}

interface Quantifier {
  readonly text: string;
  readonly repeats: boolean;
}

/** Reads one pattern; never runs it, so it cannot hang. */
export function readPattern(source: string): PatternReading {
  if (source.length > MAX_PATTERN_LENGTH) {
    return {
      ok: false,
      code: 'PATTERN_TOO_LONG',
      message: `pattern is ${source.length} characters; the limit is ${MAX_PATTERN_LENGTH}`,
    };
  }
  try {
    new RegExp(source, 'u'); // compiling does not match anything: safe, and proves the syntax below
  } catch (error) {
    return {
      ok: false,
      code: 'INVALID_PATTERN',
      message: `not a valid ECMA-262 (u mode) pattern: ${(error as Error).message}`,
    };
  }
  try {
    return { ok: true, re2: new Translator(source).run() };
  } catch (error) {
    if (error instanceof Unsafe) return { ok: false, code: 'UNSAFE_PATTERN', message: error.message };
    throw error;
  }
}

class Translator {
  private i = 0;
  private readonly out: string[] = [];
  private readonly stack: Frame[] = [{ quantified: false, alternation: false }];

  constructor(private readonly src: string) {}

  run(): string {
    while (this.i < this.src.length) this.step();
    return this.out.join('');
  }

  private get top(): Frame {
    return this.stack[this.stack.length - 1];
  }

  private step(): void {
    const c = this.src[this.i];
    if (c === '|') {
      this.top.alternation = true;
      this.emit('|', 1);
    } else if (c === '^' || c === '$') {
      this.emit(c, 1); // assertions cannot be quantified in u mode
    } else if (c === '(') {
      this.group();
    } else {
      const atom =
        c === '\\'
          ? this.escape(false)
          : c === '['
            ? this.charClass()
            : c === '.'
              ? this.take(1, DOT)
              : this.literal();
      this.out.push(atom.text);
      if (atom.quantifiable) this.quantify(null);
    }
  }

  private group(): void {
    const rest = this.src.slice(this.i, this.i + 4);
    if (/^\(\?<?[=!]/.test(rest)) throw new Unsafe('lookaround assertions are not allowed');
    if (rest.startsWith('(?:')) {
      this.emit('(?:', 3);
    } else if (rest.startsWith('(?<')) {
      const end = this.src.indexOf('>', this.i);
      this.emit(`(?P<${this.src.slice(this.i + 3, end)}>`, end + 1 - this.i);
    } else {
      this.emit('(', 1);
    }
    this.stack.push({ quantified: false, alternation: false });
    while (this.src[this.i] !== ')') this.step();
    this.emit(')', 1);
    this.quantify(this.stack.pop() as Frame);
  }

  /** Reads the quantifier after an atom (if any); `body` is the group just closed, if the atom was one. */
  private quantify(body: Frame | null): void {
    const q = this.quantifier();
    if (body) {
      if (q?.repeats && (body.quantified || body.alternation)) {
        const why = body.quantified ? 'a quantifier' : 'an alternation';
        throw new Unsafe(
          `repeated group containing ${why} (catastrophic backtracking shape, like (a+)+ or (a|a)*)`,
        );
      }
      this.top.quantified ||= body.quantified;
      this.top.alternation ||= body.alternation;
    }
    if (q) {
      this.top.quantified = true;
      this.out.push(q.text);
    }
  }

  private quantifier(): Quantifier | null {
    const m = /^(?:[*+?]|\{(\d+)(,(\d*))?\})\??/.exec(this.src.slice(this.i));
    if (!m) return null;
    this.i += m[0].length;
    const max =
      m[0][0] === '?'
        ? 1
        : m[0][0] !== '{'
          ? Infinity
          : m[2] === undefined
            ? Number(m[1])
            : m[3] === ''
              ? Infinity
              : Number(m[3]);
    return { text: m[0], repeats: max > 1 };
  }

  private escape(inClass: boolean): { text: string; quantifiable: boolean } {
    const c = this.src[this.i + 1];
    if (/[1-9]/.test(c) || c === 'k') throw new Unsafe('backreferences are not allowed');
    if ('dDwW'.includes(c)) return this.take(2, `\\${c}`);
    if (c === 's') return this.take(2, inClass ? WS : `[${WS}]`);
    if (c === 'S') return this.take(2, inClass ? NOT_WS : `[${NOT_WS}]`);
    if (c === 'b' && inClass) return this.take(2, hex(0x08));
    if (c === 'b' || c === 'B') return { ...this.take(2, `\\${c}`), quantifiable: false };
    if (c in CONTROL) return this.take(2, hex(CONTROL[c]));
    if (c === '0') return this.take(2, hex(0));
    if (c === 'c') return this.take(3, hex(this.src.charCodeAt(this.i + 2) % 32));
    if (c === 'x') return this.take(4, hex(parseInt(this.src.slice(this.i + 2, this.i + 4), 16)));
    if (c === 'u') return this.unicodeEscape();
    if (c === 'p' || c === 'P') return this.property(c);
    if (SYNTAX.has(c)) return this.take(2, c === '/' ? '/' : `\\${c}`);
    throw new Unsafe(`escape \\${c} is not supported`);
  }

  private unicodeEscape(): { text: string; quantifiable: boolean } {
    const s = this.src;
    if (s[this.i + 2] === '{') {
      const end = s.indexOf('}', this.i);
      return this.take(end + 1 - this.i, hex(parseInt(s.slice(this.i + 3, end), 16)));
    }
    const hi = parseInt(s.slice(this.i + 2, this.i + 6), 16);
    const pair = /^\\u([dD][c-fC-F][0-9a-fA-F]{2})/.exec(s.slice(this.i + 6));
    if (hi >= 0xd800 && hi <= 0xdbff && pair) {
      const lo = parseInt(pair[1], 16);
      return this.take(12, hex(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)));
    }
    return this.take(6, hex(hi));
  }

  private property(c: string): { text: string; quantifiable: boolean } {
    const end = this.src.indexOf('}', this.i);
    const body = this.src.slice(this.i + 3, end);
    // RE2 knows categories and scripts by their short names only: `Script=Greek` is `Greek`.
    const name = body.replace(/^(?:General_Category|gc|Script|sc)=/, '');
    return this.take(end + 1 - this.i, `\\${c}{${name}}`);
  }

  private charClass(): { text: string; quantifiable: boolean } {
    this.i += 1;
    const negated = this.src[this.i] === '^';
    if (negated) this.i += 1;
    const items: string[] = [];
    while (this.src[this.i] !== ']') {
      const c = this.src[this.i];
      if (c === '\\') items.push(this.escape(true).text);
      else if (c === '[')
        items.push(this.take(1, '\\[').text); // RE2 would read `[:` as a POSIX class
      else items.push(this.literal().text);
    }
    this.i += 1;
    if (items.length === 0) return { text: negated ? `[${ANY}]` : `[^${ANY}]`, quantifiable: true };
    return { text: `[${negated ? '^' : ''}${items.join('')}]`, quantifiable: true };
  }

  private literal(): { text: string; quantifiable: boolean } {
    const cp = this.src.codePointAt(this.i) as number;
    return this.take(cp > 0xffff ? 2 : 1, String.fromCodePoint(cp));
  }

  private take(length: number, text: string): { text: string; quantifiable: boolean } {
    this.i += length;
    return { text, quantifiable: true };
  }

  private emit(text: string, length: number): void {
    this.out.push(text);
    this.i += length;
  }
}
