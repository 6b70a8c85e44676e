import type { CliContext } from './client';
import { findingLines } from './diagnostics-view';
import type { NodeState, RecordedFrame, RunWatch } from './run-watch';

/** How a following command shows frames: NDJSON, plain lines, or plain lines under a live block. */
export interface Progress {
  frame(frame: RecordedFrame, watch: RunWatch): void;
  /** Stop redrawing; the block stays as last drawn. */
  close(): void;
}

/** One line per frame: `12:00:01.234  node_complete    message`, then its findings. */
export function frameLines(f: RecordedFrame): string[] {
  const reported = f.payload && 'diagnostics' in f.payload ? f.payload : undefined;
  const node = f.nodeId ? ` [${f.nodeId}]` : '';
  return [
    `${f.timestamp.slice(11, 23)}  ${f.type.padEnd(16)} ${f.message ?? ''}${node}`.trimEnd(),
    ...findingLines(f.type, reported),
  ];
}

const MARK: Record<NodeState, string> = { pending: '·', running: '▸', retrying: '↻', done: '✓', failed: '✗' };

/** The live block: the run, its state and elapsed time, then each node of the current plan. */
export function progressBlock(w: RunWatch, nowMs: number): string[] {
  const elapsed = w.startedAt ? Math.max(0, (nowMs - Date.parse(w.startedAt)) / 1000) : 0;
  const state =
    w.ended ??
    (w.paused
      ? 'paused'
      : w.pendingHitl.length
        ? `waiting for a human (${w.pendingHitl.join(', ')})`
        : 'running');
  const done = w.nodes.filter((n) => n.state === 'done').length;
  const head = `run ${w.runId ?? '…'}  ${state}  ${elapsed.toFixed(1)}s  plan v${w.planVersion}  ${done}/${w.nodes.length} nodes`;
  return [
    head,
    ...w.nodes.map((n) => {
      const attempt = n.attempt > 1 ? ` (attempt ${n.attempt})` : '';
      return `  ${MARK[n.state]} ${n.nodeId.padEnd(24)} ${(n.capabilityId ?? '').padEnd(36)} ${n.state}${attempt}`;
    }),
  ];
}

/** NDJSON on stdout: one frame per line, with its position. */
export function jsonProgress(ctx: CliContext): Progress {
  return { frame: (f) => ctx.out(JSON.stringify(f)), close: () => undefined };
}

/** Plain lines on stderr (not a terminal, or a log). */
export function lineProgress(ctx: CliContext): Progress {
  return {
    frame: (f) => frameLines(f).forEach((l) => ctx.err(l)),
    close: () => undefined,
  };
}

/** On a terminal: the frame lines scroll above a block redrawn in place, and every second. */
export function ttyProgress(stream: NodeJS.WriteStream): Progress {
  let watch: RunWatch | undefined;
  let drawn = 0;
  const draw = (lines: string[] = []) => {
    const block = watch ? progressBlock(watch, Date.now()) : [];
    const clear = drawn ? `\x1b[${drawn}F\x1b[J` : '';
    const width = stream.columns || 120;
    stream.write(
      clear + [...lines, ...block.map((l) => l.slice(0, width - 1))].map((l) => `${l}\n`).join(''),
    );
    drawn = block.length;
  };
  const timer = setInterval(() => draw(), 1000);
  timer.unref();
  return {
    frame: (f, w) => {
      watch = w;
      draw(frameLines(f));
    },
    close: () => {
      clearInterval(timer);
      draw();
    },
  };
}

/** The progress a following command shows: NDJSON with --json, a live block on a terminal, else lines. */
export function progressFor(ctx: CliContext, json: boolean): Progress {
  if (json) return jsonProgress(ctx);
  if (process.stderr.isTTY && process.env.TERM !== 'dumb') return ttyProgress(process.stderr);
  return lineProgress(ctx);
}
