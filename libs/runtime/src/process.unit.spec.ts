import { ConfigError } from './config';
import { startFailure } from './process';

describe('startFailure: what a process that cannot start prints', () => {
  it('a refusal the user can fix is one line, without a stack trace', () => {
    const locked = Object.assign(new Error('another Flex process (pid 42) is using .flex; stop it first'), {
      code: 'DATA_DIR_LOCKED',
    });
    expect(startFailure(locked)).toBe('flex: another Flex process (pid 42) is using .flex; stop it first');
    expect(startFailure(new ConfigError(['PORT: too big', 'FLEX_HOST: bad']))).toBe(
      'flex: invalid configuration: PORT: too big; FLEX_HOST: bad',
    );
    const taken = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:3000'), {
      code: 'EADDRINUSE',
    });
    expect(startFailure(taken)).toBe('flex: listen EADDRINUSE: address already in use 127.0.0.1:3000');
  });

  it('anything else is printed whole: a bug needs its stack', () => {
    const bug = new TypeError('x is undefined');
    expect(startFailure(bug)).toBe(bug);
    expect(startFailure('text')).toBe('text');
    expect(startFailure(null)).toBe(null);
  });
});
