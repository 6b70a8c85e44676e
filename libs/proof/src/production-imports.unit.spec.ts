// fast-check is a dev dependency (the images install without them): the proof services load must
// never reach it. Only the test-support arbitrary (schema/schema-arbitrary) may import it.
jest.mock('fast-check', () => {
  throw new Error('fast-check reached from a production import');
});

describe('the proof library in production', () => {
  it('loads, with everything the services use, without fast-check', () => {
    const proof = jest.requireActual<typeof import('./index')>('./index');
    expect(typeof proof.proveContract).toBe('function');
    expect(typeof proof.bindContract).toBe('function');
  });
});
