import { assertCheckpoint, compareCheckpoints } from './checkpoints';
import { START_CHECKPOINT } from './types';

describe('checkpoints', () => {
  it('order by transaction id as a 64-bit number, then by position', () => {
    const sorted = [
      START_CHECKPOINT,
      { transactionId: '9', position: 50 },
      { transactionId: '10', position: 3 },
      { transactionId: '10', position: 4 },
      { transactionId: '18446744073709551615', position: 1 },
    ];
    const shuffled = [sorted[3], sorted[0], sorted[4], sorted[2], sorted[1]];
    expect(shuffled.sort(compareCheckpoints)).toEqual(sorted);
  });

  it('refuse what is not a checkpoint', () => {
    expect(() => assertCheckpoint(START_CHECKPOINT)).not.toThrow();
    for (const bad of [
      { transactionId: '-1', position: 0 },
      { transactionId: '1', position: -1 },
      { transactionId: 'x', position: 0 },
      { transactionId: 1, position: 0 },
    ]) {
      expect(() => assertCheckpoint(bad as never)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    }
  });
});
