import { isDatabaseUnavailable } from './database-unavailable';

describe('isDatabaseUnavailable: a database gone away is told from a statement that failed', () => {
  it.each([
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    [
      'Postgres shutting down (admin_shutdown)',
      Object.assign(new Error('terminating connection'), { code: '57P01' }),
    ],
    [
      'Postgres starting up (cannot_connect_now)',
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
    ],
    ['a connection exception (class 08)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['a connection cut mid-query', new Error('Connection terminated unexpectedly')],
    ['the pool timing out', new Error('timeout exceeded when trying to connect')],
    ['one wrapped in a cause', new Error('append failed', { cause: new Error('Connection terminated') })],
  ])('%s is unavailable', (_, error) => expect(isDatabaseUnavailable(error)).toBe(true));

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a syntax error', Object.assign(new Error('syntax error'), { code: '42601' })],
    ['a plain error', new Error('no such run')],
    ['not an error', 'Connection terminated'],
    ['nothing', undefined],
  ])('%s is not', (_, error) => expect(isDatabaseUnavailable(error)).toBe(false));
});
