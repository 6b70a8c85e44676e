import type { RunDetail } from '../api/types';
import type { RunView } from './run-view';

/**
 * The read model as of a stream position: `GET runs/:id` catches its projections up before it
 * answers, so a detail requested after the frame at `asOf` arrived knows every event up to it.
 */
export interface DetailAsOf {
  detail: RunDetail;
  asOf: number;
}

/**
 * A node's status as the page shows it: the read model's (the run model's own fold) unless the
 * stream has said something newer about the node than the read model had seen.
 */
export function shownNodeStatus(view: RunView, nodeId: string, known?: DetailAsOf): string {
  const live = view.nodes[nodeId];
  const row = known?.detail.nodes.find((n) => n.nodeId === nodeId);
  if (row && known && (!live || live.position <= known.asOf)) return row.status;
  return live?.status ?? 'pending';
}

/** The run's status: the read model's unless the stream has moved past what it had seen. */
export function shownRunStatus(view: RunView, known?: DetailAsOf): string {
  if (known && view.lastPosition <= known.asOf) return known.detail.run.status;
  return view.status;
}
