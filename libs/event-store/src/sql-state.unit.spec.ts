import fc from 'fast-check';
import { wroteNothing } from './sql-state';

const sqlState = fc.stringMatching(/^[0-9A-Z]{5}$/);

describe('wroteNothing', () => {
  it('holds for a statement the server failed: a unique violation, a deadlock, a raised exception', () => {
    for (const code of ['23505', '40P01', '40001', '22P02', 'P0001'])
      expect(wroteNothing(Object.assign(new Error('failed'), { code, severity: 'ERROR' }))).toBe(true);
  });

  it('does not hold without an ERROR answer, or when the connection went away, perhaps after the commit', () => {
    fc.assert(
      fc.property(sqlState, fc.constantFrom('ERROR', 'FATAL', 'PANIC', undefined), (code, severity) => {
        const connection = code.startsWith('08') || code.startsWith('57');
        expect(wroteNothing({ code, severity })).toBe(severity === 'ERROR' && !connection);
      }),
    );
    for (const error of [
      new Error('Connection terminated unexpectedly'),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }),
      { code: '23505' },
      { code: '57P01', severity: 'FATAL' },
      Object.assign(new Error('the PGlite worker thread ended'), { code: 'PGLITE_WORKER_EXITED' }),
      { code: '57P01' },
      { code: '08006' },
      undefined,
      'a string',
    ])
      expect(wroteNothing(error)).toBe(false);
  });
});
