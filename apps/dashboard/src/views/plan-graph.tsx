import type { PlanGraph } from '@flex/contracts';
import { useMemo } from 'preact/hooks';
import { statusLabel } from '../format';
import { layoutGraph, NODE_HEIGHT, NODE_WIDTH } from '../run/graph-layout';

/** How a node differs from the version it is compared with. */
export type DiffMark = 'added' | 'removed' | 'changed';

export interface PlanGraphProps {
  plan: PlanGraph;
  /** An accessible name for the drawing (`Plan v2`). */
  label: string;
  statusOf: (nodeId: string) => string;
  attemptOf?: (nodeId: string) => number | undefined;
  selected?: string;
  onSelect?: (nodeId: string) => void;
  marks?: Record<string, DiffMark>;
}

const MARK_WORDS: Record<DiffMark, string> = { added: 'added', removed: 'removed', changed: 'changed' };

/**
 * A plan as a layered drawing: edges in SVG, nodes as buttons (focusable, in reading order, each
 * named by its label, state and diff mark), coloured by state.
 */
export function PlanGraphView(props: PlanGraphProps) {
  const { plan } = props;
  const layout = useMemo(() => layoutGraph(plan), [plan]);
  const byId = useMemo(() => new Map(plan.nodes.map((n) => [n.id, n])), [plan]);
  return (
    <figure class="graph" aria-label={props.label}>
      <div class="graph-canvas" style={{ width: `${layout.width}px`, height: `${layout.height}px` }}>
        <svg width={layout.width} height={layout.height} aria-hidden="true" focusable="false">
          <defs>
            <marker
              id="arrow"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto"
            >
              <path d="M0,0 L10,5 L0,10 z" class="arrow-head" />
            </marker>
          </defs>
          {layout.edges.map((e) => (
            <path key={`${e.from}-${e.to}`} d={e.path} class="edge" marker-end="url(#arrow)" />
          ))}
        </svg>
        {layout.nodes.map((placed) => {
          const node = byId.get(placed.id);
          if (!node) return null;
          const status = props.statusOf(node.id);
          const mark = props.marks?.[node.id];
          const attempt = props.attemptOf?.(node.id);
          const name = `${node.label} (${node.id}): ${statusLabel(status)}${mark ? `, ${MARK_WORDS[mark]}` : ''}`;
          return (
            <button
              key={node.id}
              type="button"
              class={`node status-${status}${mark ? ` mark-${mark}` : ''}`}
              style={{
                left: `${placed.x}px`,
                top: `${placed.y}px`,
                width: `${NODE_WIDTH}px`,
                height: `${NODE_HEIGHT}px`,
              }}
              aria-label={name}
              aria-pressed={props.onSelect ? props.selected === node.id : undefined}
              data-node-id={node.id}
              data-status={status}
              onClick={() => props.onSelect?.(node.id)}
            >
              <span class="node-label">{node.label}</span>
              <span class="node-meta">{node.capabilityId ?? node.kind}</span>
              <span class="node-state">
                {statusLabel(status)}
                {attempt && attempt > 1 ? ` · attempt ${attempt}` : ''}
                {mark ? ` · ${MARK_WORDS[mark]}` : ''}
              </span>
            </button>
          );
        })}
      </div>
    </figure>
  );
}
