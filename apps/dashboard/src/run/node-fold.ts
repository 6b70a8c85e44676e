import type { EventPayload } from '@flex/contracts';
import type { Frame } from '../api/types';
import type { AttemptView, RunView } from './run-view';

/** A node's attempt started, completed or failed: its attempt record and its state. */
export function nodeEvent(
  view: RunView,
  frame: Extract<Frame, { type: 'node_start' | 'node_complete' | 'node_error' }>,
): RunView {
  const p = frame.payload;
  if (!p) return view;
  const node = view.nodes[p.nodeId] ?? { status: 'pending', attempts: [], position: 0 };
  const attempts = [...node.attempts];
  const index = attempts.findIndex((a) => a.attempt === p.attempt);
  const attempt: AttemptView =
    index >= 0 ? { ...attempts[index] } : { attempt: p.attempt, validationErrors: [] };
  let status = node.status;
  if (frame.type === 'node_start') {
    Object.assign(attempt, { capabilityId: p.capabilityId, startedAt: frame.timestamp });
    status = 'running';
  } else if (frame.type === 'node_complete' && 'output' in p) {
    Object.assign(attempt, { output: p.output, durationMs: p.durationMs });
    status = 'completed';
  } else if (frame.type === 'node_error' && 'error' in p) {
    Object.assign(attempt, { error: p.error, willRetry: p.willRetry });
    status = p.willRetry ? 'retry_wait' : 'failed';
  }
  if (index >= 0) attempts[index] = attempt;
  else attempts.push(attempt);
  attempts.sort((a, b) => a.attempt - b.attempt);
  return { ...view, nodes: { ...view.nodes, [p.nodeId]: { status, attempts, position: frame.position } } };
}

/** Validation errors land on the node attempt they are about (the latest when none is named). */
export function validationError(
  view: RunView,
  p: EventPayload<'validation_error'>,
  position: number,
): RunView {
  if (!p.nodeId) return view;
  const node = view.nodes[p.nodeId] ?? { status: 'pending', attempts: [], position };
  const number = p.attempt ?? node.attempts.at(-1)?.attempt ?? 1;
  const errors = p.errors.map((e) => ({ scope: p.scope, ...e }));
  const attempts = [...node.attempts];
  const index = attempts.findIndex((a) => a.attempt === number);
  if (index >= 0)
    attempts[index] = {
      ...attempts[index],
      validationErrors: [...attempts[index].validationErrors, ...errors],
    };
  else attempts.push({ attempt: number, validationErrors: errors });
  return { ...view, nodes: { ...view.nodes, [p.nodeId]: { ...node, attempts, position } } };
}
