import { createLogger, type LogLevel } from './log';
import { nestLogger } from './nest-logger';

function nest(level: LogLevel) {
  const raw: string[] = [];
  const logger = createLogger({
    service: 'gateway',
    level,
    destination: { write: (t: string) => raw.push(t) },
  });
  return { nest: nestLogger(logger), raw, lines: () => raw.map((t) => JSON.parse(t) as Record<string, any>) };
}

describe('nestLogger: Nest’s logging as our JSON lines', () => {
  it('Nest’s chatter (`log`) is debug, its context the component', () => {
    const info = nest('info');
    info.nest.log('Mapped {/api/v1/flex/runs, GET} route', 'RouterExplorer');
    expect(info.raw).toEqual([]);
    const debug = nest('debug');
    debug.nest.log('Mapped {/api/v1/flex/runs, GET} route', 'RouterExplorer');
    expect(debug.lines()).toEqual([
      expect.objectContaining({
        level: 'debug',
        msg: 'Mapped {/api/v1/flex/runs, GET} route',
        component: 'RouterExplorer',
      }),
    ]);
  });

  it('an error with the stack Nest passes as text is one line, the stack a field', () => {
    const { nest: n, raw, lines } = nest('info');
    const error = new Error('database went away');
    n.error(error.message, error.stack, 'ExceptionsHandler');
    expect(raw).toHaveLength(1);
    expect(raw[0].trimEnd()).not.toContain('\n');
    expect(lines()[0]).toMatchObject({
      level: 'error',
      msg: 'database went away',
      component: 'ExceptionsHandler',
      err: { message: 'database went away', stack: error.stack },
    });
  });

  it('an Error object becomes err; warn and fatal keep their levels', () => {
    const { nest: n, lines } = nest('info');
    n.error(new TypeError('bad'), 'Bootstrap');
    n.warn('slow', 'Server');
    n.fatal?.('gone');
    expect(lines()).toEqual([
      expect.objectContaining({
        level: 'error',
        msg: 'bad',
        component: 'Bootstrap',
        err: expect.objectContaining({ type: 'TypeError' }),
      }),
      expect.objectContaining({ level: 'warn', msg: 'slow', component: 'Server' }),
      expect.objectContaining({ level: 'fatal', msg: 'gone' }),
    ]);
  });
});
