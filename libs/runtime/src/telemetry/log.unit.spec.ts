import { context, ROOT_CONTEXT, trace, type Context, type ContextManager } from '@opentelemetry/api';
import fc from 'fast-check';
import { ConfigError, loadConfig } from '../config';
import { createLogger, LOG_LEVELS, type LogLevel } from './log';
import { RunLogTap, type RunLogLine } from './log-tap';

type Line = Record<string, unknown>;

function capture(level: LogLevel, service = 'executor') {
  const lines: Line[] = [];
  const raw: string[] = [];
  const logger = createLogger({
    service,
    level,
    destination: {
      write: (text: string) => {
        raw.push(text);
        lines.push(JSON.parse(text) as Line);
      },
    },
  });
  return { logger, lines, raw };
}

const WRITING = LOG_LEVELS.filter((l): l is Exclude<LogLevel, 'silent'> => l !== 'silent');
const hex = (length: number) =>
  fc
    .string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length })
    .filter((s) => /[1-9a-f]/.test(s));

describe('createLogger: one JSON line per entry', () => {
  it('carries level (its name), an ISO time, service, msg and the data given', () => {
    const { logger, lines, raw } = capture('info');
    logger.info('plan requested', { runId: 'r1', nodeId: 'n1', attempt: 2 });
    expect(raw).toHaveLength(1);
    expect(raw[0].endsWith('\n')).toBe(true);
    expect(raw[0].trimEnd()).not.toContain('\n');
    expect(lines[0]).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      service: 'executor',
      msg: 'plan requested',
      runId: 'r1',
      nodeId: 'n1',
      attempt: 2,
    });
  });

  it('writes a line exactly when its level is at or above FLEX_LOG_LEVEL (all pairs)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...LOG_LEVELS), fc.constantFrom(...WRITING), (configured, at) => {
        const { logger, lines } = capture(configured);
        logger[at]('x');
        const expected = configured !== 'silent' && LOG_LEVELS.indexOf(at) >= LOG_LEVELS.indexOf(configured);
        expect(lines.map((l) => l.level)).toEqual(expected ? [at] : []);
      }),
    );
  });

  it('an error is one line: err.type, err.message and err.stack as fields', () => {
    const { logger, raw, lines } = capture('info');
    const boom = Object.assign(new TypeError('boom\nsecond line'), { code: 'E_BOOM' });
    logger.error('handler failed', { err: boom });
    logger.warn('retrying', { error: boom });
    expect(raw).toHaveLength(2);
    for (const line of raw) expect(line.trimEnd()).not.toContain('\n');
    for (const key of ['err', 'error']) {
      const line = lines.find((l) => key in l);
      expect(line?.[key]).toMatchObject({ type: 'TypeError', message: 'boom\nsecond line', code: 'E_BOOM' });
      expect((line?.[key] as { stack: string }).stack).toContain('log.unit.spec');
    }
  });

  it('a child keeps its bindings on every line', () => {
    const { logger, lines } = capture('debug');
    logger.child({ component: 'projection-runner' }).debug('caught up', { position: 7 });
    expect(lines[0]).toMatchObject({ component: 'projection-runner', position: 7, service: 'executor' });
  });
});

describe('trace ids', () => {
  it('a line naming a valid traceparent carries its trace_id and span_id, not the header', () => {
    fc.assert(
      fc.property(hex(32), hex(16), fc.constantFrom('00', '01'), (traceId, spanId, flags) => {
        const { logger, lines } = capture('info');
        logger.info('x', { runId: 'r', traceparent: `00-${traceId}-${spanId}-${flags}` });
        expect(lines[0]).toEqual(expect.objectContaining({ trace_id: traceId, span_id: spanId }));
        expect(lines[0]).not.toHaveProperty('traceparent');
      }),
    );
  });

  it('anything but a valid W3C traceparent gives no ids (the line keeps no raw header either)', () => {
    const id = 'a'.repeat(32);
    const span = 'b'.repeat(16);
    for (const bad of [
      undefined,
      42,
      '',
      `00-${id}-${span}`,
      `00-${id.toUpperCase()}-${span}-01`,
      `ff-${id}-${span}-01`,
      `00-${'0'.repeat(32)}-${span}-01`,
      `00-${id}-${'0'.repeat(16)}-01`,
      `00-${id}-${span}-01-extra`,
      `00-${id}x-${span}-01`,
    ]) {
      const { logger, lines } = capture('info');
      logger.info('x', { runId: 'r', traceparent: bad });
      expect(lines[0]).not.toHaveProperty('trace_id');
      expect(lines[0]).not.toHaveProperty('traceparent');
    }
  });

  describe('with an OpenTelemetry context manager', () => {
    beforeAll(() => context.setGlobalContextManager(new StackContextManager()));
    afterAll(() => context.disable());

    it('a line written inside an active span carries that span’s ids', () => {
      const { logger, lines } = capture('info');
      const active = { traceId: 'c'.repeat(32), spanId: 'd'.repeat(16), traceFlags: 1 };
      const span = trace.wrapSpanContext(active);
      context.with(trace.setSpan(context.active(), span), () => logger.info('inside'));
      logger.info('outside');
      expect(lines[0]).toMatchObject({ msg: 'inside', trace_id: active.traceId, span_id: active.spanId });
      expect(lines[1]).not.toHaveProperty('trace_id');
    });

    it('a line about an event keeps the event’s own trace ids over the active span', () => {
      const { logger, lines } = capture('info');
      const span = trace.wrapSpanContext({ traceId: 'c'.repeat(32), spanId: 'd'.repeat(16), traceFlags: 1 });
      const traceparent = `00-${'e'.repeat(32)}-${'f'.repeat(16)}-01`;
      context.with(trace.setSpan(context.active(), span), () => logger.info('event', { traceparent }));
      expect(lines[0]).toMatchObject({ trace_id: 'e'.repeat(32), span_id: 'f'.repeat(16) });
    });
  });
});

describe('FLEX_LOG_LEVEL and FLEX_LOG_FRAME_LEVEL', () => {
  it('default to info', () => {
    const config = loadConfig({});
    expect(config.FLEX_LOG_LEVEL).toBe('info');
    expect(config.FLEX_LOG_FRAME_LEVEL).toBe('info');
  });

  it('take every level by name', () => {
    for (const level of LOG_LEVELS) expect(loadConfig({ FLEX_LOG_LEVEL: level }).FLEX_LOG_LEVEL).toBe(level);
  });

  it('an invalid value is a start-up error naming the variable and the levels', () => {
    for (const name of ['FLEX_LOG_LEVEL', 'FLEX_LOG_FRAME_LEVEL']) {
      let thrown: unknown;
      try {
        loadConfig({ [name]: 'loud' });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as ConfigError).message).toMatch(new RegExp(`${name}: .*"trace".*"silent"`));
    }
  });
});

describe('RunLogTap: the lines about a run, for its SSE streams', () => {
  function tapped(minLevel: LogLevel) {
    const out: string[] = [];
    const forwarded: RunLogLine[] = [];
    const tap = new RunLogTap({ write: (text: string) => out.push(text) }, minLevel);
    const logger = createLogger({ service: 'planner', level: 'trace', destination: tap });
    return { tap, logger, out, forwarded };
  }

  it('forwards the written line of a run at or above its level, unchanged; every line still goes out', () => {
    const { tap, logger, out, forwarded } = tapped('info');
    logger.info('before attach', { runId: 'r0' });
    const detach = tap.attach((line) => forwarded.push(line));
    logger.debug('too quiet', { runId: 'r1' });
    logger.info('no run');
    logger.warn('node failed', { runId: 'r1', nodeId: 'n1' });
    detach();
    logger.error('after detach', { runId: 'r1' });
    expect(out).toHaveLength(5);
    expect(forwarded).toEqual([JSON.parse(out[3])]);
    expect(forwarded[0]).toMatchObject({ level: 'warn', runId: 'r1', nodeId: 'n1', service: 'planner' });
  });

  it('a forwarded line keeps an error’s type and message, not its stack (that stays in the process’s log)', () => {
    const { tap, logger, out, forwarded } = tapped('info');
    tap.attach((line) => forwarded.push(line));
    logger.warn('handler failed', { runId: 'r1', err: new Error('boom') });
    expect(JSON.parse(out[0]).err.stack).toContain('Error: boom');
    expect(forwarded[0].err).toEqual({ type: 'Error', message: 'boom' });
  });

  it('property: a line is forwarded iff it names a run and its level reaches the tap’s', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LOG_LEVELS),
        fc.constantFrom(...WRITING),
        fc.boolean(),
        (minLevel, at, aboutRun) => {
          const { tap, logger, forwarded } = tapped(minLevel);
          tap.attach((line) => forwarded.push(line));
          logger[at]('x', aboutRun ? { runId: 'r' } : {});
          const reaches = minLevel !== 'silent' && LOG_LEVELS.indexOf(at) >= LOG_LEVELS.indexOf(minLevel);
          expect(forwarded).toHaveLength(aboutRun && reaches ? 1 : 0);
        },
      ),
    );
  });
});

/** The smallest synchronous context manager: enough for context.with / context.active. */
class StackContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;

  active(): Context {
    return this.current;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const previous = this.current;
    this.current = ctx;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = previous;
    }
  }

  bind<T>(_ctx: Context, target: T): T {
    return target;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}
