import { RUN_LOG_LIMITS, RunLogCollector } from './run-log';
import type { AgentLogger } from './logger';

function recorder(): AgentLogger & { seen: string[] } {
  const seen: string[] = [];
  const at = (level: string) => (msg: string) => void seen.push(`${level} ${msg}`);
  return { seen, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('RunLogCollector: the lines an invocation returns with its answer', () => {
  it('passes every line on to the agent logger, and keeps info and above', () => {
    const inner = recorder();
    const log = new RunLogCollector(inner);
    log.logger.debug('tokens counted');
    log.logger.info('brief drafted', { words: 3 });
    log.logger.warn('model slow');
    log.logger.error('retrying');
    expect(inner.seen).toEqual([
      'debug tokens counted',
      'info brief drafted',
      'warn model slow',
      'error retrying',
    ]);
    expect(log.lines()).toEqual([
      { level: 'info', message: 'brief drafted', data: { words: 3 } },
      { level: 'warn', message: 'model slow' },
      { level: 'error', message: 'retrying' },
    ]);
  });

  it('keeps the first lines, each cut to size, and says how many more there were', () => {
    const log = new RunLogCollector(recorder());
    log.logger.info('x'.repeat(5_000), { big: 'y'.repeat(5_000) });
    log.logger.info('cyclic', { self: undefined, fn: () => 1 } as Record<string, unknown>);
    for (let i = 0; i < 30; i++) log.logger.info(`line ${i}`);
    const lines = log.lines();
    expect(lines).toHaveLength(RUN_LOG_LIMITS.lines + 1);
    expect(lines[0]).toEqual({ level: 'info', message: 'x'.repeat(RUN_LOG_LIMITS.messageLength) });
    expect(lines[1]).toEqual({ level: 'info', message: 'cyclic', data: {} });
    expect(lines[lines.length - 1]).toEqual({ level: 'warn', message: '12 more log lines not kept' });
  });
});
