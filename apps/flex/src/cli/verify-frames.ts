import { canonicalJson, TERMINAL_EVENT_TYPES } from '@flex/contracts';
import type { RunDetail } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { compileUntrustedSchema } from '@flex/facets';
import { evolveRun, initialRunState } from '@flex/run-model';
import { planningProblems } from './diagnostics-view';
import type { RecordedFrame } from './run-watch';

/**
 * The audit invariants of a run's recorded frames, against what the API reports: one terminal
 * event, last, once the run has ended (none before); increasing positions; no node completed twice in a plan version; the frames fold to
 * the read model's status; a completed run's output satisfies the caller's schema and equals the
 * stored output. Returns the problems found (none: the record holds).
 */
export function verifyFrames(frames: RecordedFrame[], detail: RunDetail): string[] {
  const problems: string[] = planningProblems(frames);
  const ended = ['completed', 'failed', 'cancelled'].includes(detail.run.status);
  const terminal = frames.filter((f) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(f.type));
  // A run that has not ended (waiting on a human, paused) is checked up to its last event.
  if (!ended && terminal.length > 0)
    problems.push(`a terminal event (${terminal[0].type}) on a run the read model has ${detail.run.status}`);
  else if (ended && terminal.length !== 1)
    problems.push(`expected exactly one terminal event, found ${terminal.length}`);
  else if (ended && frames[frames.length - 1] !== terminal[0])
    problems.push('events follow the terminal event');
  for (let i = 1; i < frames.length; i++)
    if (frames[i].position <= frames[i - 1].position)
      problems.push(`positions not increasing at ${frames[i].position}`);
  const completed = new Set<string>();
  for (const f of frames.filter((x) => x.type === 'node_complete')) {
    const key = `${f.planVersion ?? 0}:${f.payload?.nodeId}`;
    if (completed.has(key))
      problems.push(`node ${f.payload?.nodeId} completed twice in plan v${f.planVersion}`);
    completed.add(key);
  }
  const events = frames.map((f, i): StoredEvent => ({
    position: f.position,
    id: f.id,
    streamId: `run-${f.runId}`,
    version: i + 1,
    type: f.type,
    payload: f.payload,
    metadata: { correlationId: f.correlationId },
    timestamp: f.timestamp,
  }));
  const state = events.reduce(evolveRun, initialRunState());
  if (state.status !== 'none' && state.status !== detail.run.status && ended) {
    problems.push(`replayed status ${state.status} differs from the read model's ${detail.run.status}`);
  }
  if (state.status === 'completed') {
    const errors = compileUntrustedSchema(state.envelope.outputContract.schema)(state.output);
    if (errors.length) problems.push(`the recorded output breaks the caller schema: ${errors[0].message}`);
    if (detail.output && canonicalJson(detail.output.output) !== canonicalJson(state.output))
      problems.push('the replayed output differs from the stored output');
  }
  return problems;
}
