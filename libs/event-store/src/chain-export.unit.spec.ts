import fc from 'fast-check';
import { chainHead } from './chain';
import { exportLines, parseExport, signHead, verifyExport } from './chain-export';
import { chainOf, fields, STREAM } from './chain.spec-helper';

const KEY = 'a signing key of at least thirty-two characters';
const events = chainOf(fc.sample(fields, { numRuns: 5, seed: 42 }));
const head = chainHead(STREAM, events);
const file = (lines: string[]) => `${lines.join('\n')}\n`;

describe('chain exports', () => {
  it('round-trips: an export verifies offline, its signed head with the key', () => {
    const unsigned = file(exportLines(events, head));
    expect(parseExport(unsigned)).toEqual({ events, head });
    expect(verifyExport(unsigned)).toMatchObject({ ok: true, events: 5, head, signature: 'unsigned' });
    const signed = file(exportLines(events, signHead(head, KEY)));
    expect(verifyExport(signed, KEY)).toMatchObject({ ok: true, signature: 'valid' });
    expect(verifyExport(signed)).toMatchObject({ ok: true, signature: 'unchecked' });
    expect(verifyExport(signed, `${KEY}!`)).toMatchObject({ signature: 'invalid' });
  });

  it('names the first bad event of a tampered file', () => {
    const lines = exportLines(events, head);
    lines[2] = lines[2].replace(`"version":3`, `"version":3,"payload":{"forged":true}`);
    expect(verifyExport(file(lines))).toMatchObject({
      ok: false,
      firstBad: { index: 2, version: 3, eventId: events[2].id, problem: 'edited' },
    });
    const shortened = exportLines(events.slice(0, 4), head);
    expect(verifyExport(file(shortened)).firstBad).toMatchObject({
      index: 4,
      version: 5,
      problem: 'deleted',
    });
  });

  it('refuses a file that is not an export, naming the line', () => {
    const lines = exportLines(events, head);
    expect(() => parseExport(file([...lines.slice(0, 2), '{not json', ...lines.slice(2)]))).toThrow(
      /^line 3: not JSON/,
    );
    expect(() => parseExport(file(lines.slice(0, -1)))).toThrow('line 5: the last line must be {"head": …}');
    expect(() => parseExport(file([lines[5], ...lines]))).toThrow('line 1: a head before the last line');
    const noVersion = lines[1].replace(/"version":\d+,/, '');
    expect(() => parseExport(file([lines[0], noVersion, ...lines.slice(2)]))).toThrow(
      'line 2: version must be an integer',
    );
    expect(() => parseExport('')).toThrow('line 0: the last line must be {"head": …}');
  });
});
