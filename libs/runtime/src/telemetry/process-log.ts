import { runLogSubject, type Messaging } from '@flex/bus';
import type { FlexConfig } from '../config';
import { createLogger, type Logger } from './log';
import { RunLogTap } from './log-tap';

export interface ProcessLog {
  logger: Logger;
  /** Start sending the run lines of this process to its runs' SSE readers; returns the stop. */
  publishRunLines(messaging: Messaging, prefix: string): () => void;
}

/**
 * The logger of one process: JSON lines on stdout at FLEX_LOG_LEVEL, and the lines about a run at
 * FLEX_LOG_FRAME_LEVEL or above published on `<prefix>.logs.<service>.<runId>` once messaging
 * exists (fire and forget: a line nobody reads, or one NATS refuses, is simply gone).
 */
export function createProcessLog(config: FlexConfig, service: string): ProcessLog {
  const tap = new RunLogTap(process.stdout, config.FLEX_LOG_FRAME_LEVEL);
  const logger = createLogger({ service, level: config.FLEX_LOG_LEVEL, destination: tap });
  return {
    logger,
    publishRunLines: (messaging, prefix) =>
      tap.attach((line) => {
        messaging.publish(runLogSubject(prefix, service, line.runId), line).catch(() => undefined);
      }),
  };
}
