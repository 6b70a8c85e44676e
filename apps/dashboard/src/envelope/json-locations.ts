import { formatIssuePath } from '@flex/contracts';

/**
 * Where each value of a JSON text starts, by the dotted path the API names issues with
 * (`policies.runtime[0].action`): so an issue, the browser's own or the server's, can point at its
 * place in the editor. Reads valid JSON only; on invalid text it returns what it found so far.
 */
export function jsonLocations(text: string): Map<string, number> {
  const found = new Map<string, number>();
  let i = 0;
  const space = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: Array<string | number>): void => {
    space();
    found.set(formatIssuePath(path), i);
    const c = text[i];
    if (c === '{') return container('}', path, true);
    if (c === '[') return container(']', path, false);
    if (c === '"') return void string();
    while (i < text.length && !',]} \t\r\n'.includes(text[i])) i++;
  };
  const container = (close: string, path: Array<string | number>, object: boolean): void => {
    i++;
    for (let index = 0; ; index++) {
      space();
      if (text[i] === close || i >= text.length) return void i++;
      if (text[i] === ',') i++;
      space();
      if (text[i] === close) return void i++;
      let key: string | number = index;
      if (object) {
        key = string();
        space();
        i++; // the colon
      }
      value([...path, key]);
    }
  };
  try {
    value([]);
  } catch {
    // invalid JSON: keep the locations read so far
  }
  return found;
}

/** The location of `path`, or of its nearest ancestor that exists (a missing key's parent). */
export function locate(text: string, path: string): number | undefined {
  const found = jsonLocations(text);
  for (let p = path; ; p = parentOf(p)) {
    const at = found.get(p);
    if (at !== undefined || p === '') return at;
  }
}

function parentOf(path: string): string {
  const cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
  return cut <= 0 ? '' : path.slice(0, cut);
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}
