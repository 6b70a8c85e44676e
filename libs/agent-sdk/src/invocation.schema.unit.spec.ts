import { parseInvocation, resolveDeadline } from './invocation.schema';

const base = {
  runId: 'r',
  nodeId: 'n',
  attempt: 2,
  capabilityId: 'cap.x',
  inputs: {},
  outputFacets: [],
  context: { objective: 'o' },
};

describe('parseInvocation', () => {
  it('derives the idempotency key when the executor leaves it out', () => {
    expect(parseInvocation(base, 'cap.x').idempotencyKey).toBe('r:n:2');
    expect(parseInvocation({ ...base, idempotencyKey: 'given' }, 'cap.x').idempotencyKey).toBe('given');
  });

  it('names what is malformed', () => {
    expect(() => parseInvocation({ ...base, attempt: 0 }, 'cap.x')).toThrow(/attempt/);
    expect(() => parseInvocation(null, 'cap.x')).toThrow(
      expect.objectContaining({ code: 'invalid_input', retryable: false }),
    );
  });
});

describe('resolveDeadline', () => {
  it('reads epoch milliseconds as they are and small values as durations from receipt', () => {
    expect(resolveDeadline(undefined, 1_000)).toBeUndefined();
    expect(resolveDeadline(1_767_225_600_000, 5)).toBe(1_767_225_600_000);
    expect(resolveDeadline(30_000, 1_767_225_600_000)).toBe(1_767_225_630_000);
  });
});
