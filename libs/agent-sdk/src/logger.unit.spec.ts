import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { jsonLineLogger } from './logger';

describe('jsonLineLogger', () => {
  const manager = new AsyncLocalStorageContextManager();
  beforeAll(() => context.setGlobalContextManager(manager.enable()));
  afterAll(() => context.disable());

  function capture() {
    const lines: Array<Record<string, unknown>> = [];
    const logger = jsonLineLogger({ service: 'agent' }, (line) => lines.push(JSON.parse(line)));
    return { logger, lines };
  }

  it('writes one JSON line per entry, with its bindings and data, errors as their name and message', () => {
    const { logger, lines } = capture();
    logger.warn('slow', { capabilityId: 'S.brief', err: new Error('boom') });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'slow',
        service: 'agent',
        capabilityId: 'S.brief',
        err: { name: 'Error', message: 'boom' },
      }),
    ]);
    expect(lines[0]).not.toHaveProperty('trace_id');
  });

  it('a line written inside an active span carries its trace and span ids', () => {
    const { logger, lines } = capture();
    const ids = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 };
    context.with(trace.setSpan(context.active(), trace.wrapSpanContext(ids)), () => logger.info('inside'));
    logger.info('outside');
    expect(lines[0]).toMatchObject({ msg: 'inside', trace_id: ids.traceId, span_id: ids.spanId });
    expect(lines[1]).not.toHaveProperty('trace_id');
  });
});
