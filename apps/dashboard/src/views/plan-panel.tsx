import { useMemo, useState } from 'preact/hooks';
import { diffPlans, isEmptyDiff, type PlanDiff } from '../run/plan-diff';
import type { PlanVersion } from '../run/run-view';
import { when } from '../format';
import { Panel } from './common';
import { PlanGraphView, type DiffMark } from './plan-graph';

export interface PlanPanelProps {
  plans: PlanVersion[];
  statusOf: (nodeId: string) => string;
  attemptOf: (nodeId: string) => number | undefined;
  selected?: string;
  onSelect: (nodeId: string) => void;
}

/**
 * The plan graph, live. After a replan, two versions side by side (the one before and the one
 * after, by default the last two), nodes marked by how they changed, and the changes in words.
 */
export function PlanPanel(props: PlanPanelProps) {
  const { plans } = props;
  const current = plans.at(-1);
  const [compareWith, setCompareWith] = useState<number>();
  if (!current)
    return (
      <Panel title="Plan" id="plan">
        <p class="muted">Planning…</p>
      </Panel>
    );
  const earlier = plans.slice(0, -1);
  const before = earlier.find((p) => p.version === compareWith) ?? earlier.at(-1);
  return (
    <Panel
      title={before ? `Plan versions v${before.version} and v${current.version}` : `Plan v${current.version}`}
      id="plan"
      actions={
        before && earlier.length > 1 ? (
          <VersionPicker earlier={earlier} value={before.version} onChange={setCompareWith} />
        ) : undefined
      }
    >
      {before ? <Compare {...props} before={before} after={current} /> : <Single {...props} plan={current} />}
    </Panel>
  );
}

function Single(props: PlanPanelProps & { plan: PlanVersion }) {
  return (
    <>
      <p class="muted small">
        {props.plan.plan.metadata.plannerId} planner, {props.plan.plan.nodes.length} nodes, accepted{' '}
        {when(props.plan.at)}
      </p>
      <PlanGraphView {...props} plan={props.plan.plan} label={`Plan v${props.plan.version}`} />
    </>
  );
}

function Compare(props: PlanPanelProps & { before: PlanVersion; after: PlanVersion }) {
  const { before, after } = props;
  const diff = useMemo(() => diffPlans(before.plan, after.plan), [before, after]);
  const marksBefore: Record<string, DiffMark> = {};
  const marksAfter: Record<string, DiffMark> = {};
  for (const id of diff.removed) marksBefore[id] = 'removed';
  for (const id of diff.added) marksAfter[id] = 'added';
  for (const { nodeId } of diff.changed) marksBefore[nodeId] = marksAfter[nodeId] = 'changed';
  return (
    <>
      <DiffSummary diff={diff} after={after} />
      <div class="versions">
        <div class="version" data-version={before.version}>
          <h3>v{before.version} (as it was when replaced)</h3>
          <PlanGraphView
            {...props}
            statusOf={(id) => before.finalStatuses?.[id] ?? props.statusOf(id)}
            plan={before.plan}
            label={`Plan v${before.version}`}
            marks={marksBefore}
          />
        </div>
        <div class="version" data-version={after.version}>
          <h3>v{after.version} (current)</h3>
          <PlanGraphView {...props} plan={after.plan} label={`Plan v${after.version}`} marks={marksAfter} />
        </div>
      </div>
    </>
  );
}

function DiffSummary({ diff, after }: { diff: PlanDiff; after: PlanVersion }) {
  const trigger = after.trigger ? JSON.stringify(after.trigger) : undefined;
  return (
    <div class="diff-summary">
      {trigger && (
        <p class="small">
          Replanned on <code>{trigger}</code>
        </p>
      )}
      {isEmptyDiff(diff) ? (
        <p class="small">Same nodes and edges: the replan kept the plan’s shape.</p>
      ) : (
        <ul class="diff-list small">
          {diff.added.map((id) => (
            <li key={`a${id}`} class="diff-added">
              added node <code>{id}</code>
            </li>
          ))}
          {diff.removed.map((id) => (
            <li key={`r${id}`} class="diff-removed">
              removed node <code>{id}</code>
            </li>
          ))}
          {diff.changed.map((c) => (
            <li key={`c${c.nodeId}`} class="diff-changed">
              changed node <code>{c.nodeId}</code>: {c.fields.join(', ')}
            </li>
          ))}
          {diff.edgesAdded.map((e) => (
            <li key={`ea${e}`} class="diff-added">
              added edge {e}
            </li>
          ))}
          {diff.edgesRemoved.map((e) => (
            <li key={`er${e}`} class="diff-removed">
              removed edge {e}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function VersionPicker(props: { earlier: PlanVersion[]; value: number; onChange: (v: number) => void }) {
  return (
    <label class="inline small">
      Compare with{' '}
      <select value={props.value} onChange={(e) => props.onChange(Number(e.currentTarget.value))}>
        {props.earlier.map((p) => (
          <option key={p.version} value={p.version}>
            v{p.version}
          </option>
        ))}
      </select>
    </label>
  );
}
