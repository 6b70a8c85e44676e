import type { FlexEventFrame } from '@flex/contracts';
import { EXIT } from './exit-codes';

/** A frame as the gateway streams it, with the store position its SSE `id:` carries. */
export type RecordedFrame = FlexEventFrame & { position: number };

export type NodeState = 'pending' | 'running' | 'retrying' | 'done' | 'failed';

export interface NodeView {
  nodeId: string;
  capabilityId?: string;
  state: NodeState;
  attempt: number;
}

export type Ending = 'complete' | 'run_failed' | 'run_cancelled';

/** What a follower has learned of a run from its frames so far (pure; see watchRun). */
export interface RunWatch {
  runId?: string;
  startedAt?: string;
  planVersion: number;
  nodes: NodeView[];
  pendingHitl: string[];
  paused: boolean;
  ended?: Ending;
  lastPosition: number;
  /** The final output (complete), or why it ended (run_failed, run_cancelled). */
  output?: unknown;
  reason?: string;
}

export const NOTHING_WATCHED: RunWatch = {
  planVersion: 0,
  nodes: [],
  pendingHitl: [],
  paused: false,
  lastPosition: 0,
};

/** Fold one frame into what is known of the run. */
export function watchRun(w: RunWatch, f: RecordedFrame): RunWatch {
  const next: RunWatch = {
    ...w,
    runId: w.runId ?? f.runId,
    lastPosition: Math.max(w.lastPosition, f.position),
  };
  if (!next.startedAt && f.type === 'start') next.startedAt = f.timestamp;
  switch (f.type) {
    case 'plan_generated':
    case 'plan_updated':
      return { ...next, planVersion: f.planVersion ?? w.planVersion + 1, nodes: planNodes(w, f) };
    case 'node_start':
      return setNode(next, f.payload?.nodeId, 'running', f.payload?.attempt);
    case 'node_complete':
      return setNode(next, f.payload?.nodeId, 'done', f.payload?.attempt);
    case 'node_error':
      return setNode(
        next,
        f.payload?.nodeId,
        f.payload?.willRetry ? 'retrying' : 'failed',
        f.payload?.attempt,
      );
    case 'hitl_request':
      return { ...next, pendingHitl: [...w.pendingHitl, f.payload?.requestId ?? '?'] };
    case 'hitl_resolved':
    case 'hitl_withdrawn':
      return { ...next, pendingHitl: w.pendingHitl.filter((r) => r !== f.payload?.requestId) };
    case 'run_paused':
      return { ...next, paused: true };
    case 'run_resumed':
      return { ...next, paused: false };
    case 'complete':
      return { ...next, ended: 'complete', output: f.payload?.output, pendingHitl: [] };
    case 'run_failed':
      return {
        ...next,
        ended: 'run_failed',
        reason: f.payload ? `${f.payload.code}: ${f.payload.reason}` : f.message,
      };
    case 'run_cancelled':
      return { ...next, ended: 'run_cancelled', reason: f.payload?.reason ?? 'cancelled', pendingHitl: [] };
    default:
      return next;
  }
}

function planNodes(w: RunWatch, f: RecordedFrame): NodeView[] {
  const summaries = (f.payload as { nodes?: { nodeId: string; capabilityId?: string }[] } | undefined)?.nodes;
  const before = new Map(w.nodes.map((n) => [n.nodeId, n]));
  return (summaries ?? []).map(
    (s) =>
      before.get(s.nodeId) ?? {
        nodeId: s.nodeId,
        capabilityId: s.capabilityId,
        state: 'pending',
        attempt: 0,
      },
  );
}

function setNode(w: RunWatch, nodeId: string | undefined, state: NodeState, attempt = 0): RunWatch {
  if (!nodeId) return w;
  const known = w.nodes.some((n) => n.nodeId === nodeId);
  const nodes = known
    ? w.nodes.map((n) => (n.nodeId === nodeId ? { ...n, state, attempt } : n))
    : [...w.nodes, { nodeId, state, attempt }];
  return { ...w, nodes };
}

/** Where the run rests, if anywhere: it ended, is paused, or waits for a human. */
export function restingExit(w: RunWatch): number | undefined {
  if (w.ended === 'complete') return EXIT.ok;
  if (w.ended === 'run_failed') return EXIT.failed;
  if (w.ended === 'run_cancelled') return EXIT.cancelled;
  if (w.paused) return EXIT.paused;
  if (w.pendingHitl.length) return EXIT.waitingForHuman;
  return undefined;
}
