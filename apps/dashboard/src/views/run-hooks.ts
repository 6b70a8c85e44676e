import { useCallback, useEffect, useReducer, useRef, useState } from 'preact/hooks';
import { TERMINAL_EVENT_TYPES } from '@flex/contracts';
import { ApiError } from '../api/api-error';
import type { FlexApi } from '../api/client';
import type { Frame } from '../api/types';
import { emptyRunView, foldFrame, type RunView } from '../run/run-view';
import type { DetailAsOf } from '../run/shown-status';

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'failed';

export interface RunStream {
  view: RunView;
  /** The last frames, oldest first (the page's event log). */
  frames: Frame[];
  connection: Connection;
  error?: unknown;
  /** Grows with every frame that changes what `GET runs/:id` says (a cue to read it again). */
  changes: number;
}

const KEPT_FRAMES = 1_000;
const MAX_BACKOFF_MS = 15_000;
/** Frames after which the read model holds something the page shows from it. */
const DETAIL_CUES = new Set([
  'plan_generated',
  'plan_updated',
  'hitl_request',
  'hitl_resolved',
  'hitl_withdrawn',
  'run_paused',
  'run_resumed',
  'node_complete',
  'node_error',
  ...TERMINAL_EVENT_TYPES,
]);
const TERMINAL = new Set<string>(TERMINAL_EVENT_TYPES);

type Action =
  { kind: 'frames'; frames: Frame[] } | { kind: 'connection'; connection: Connection; error?: unknown };

function reduce(state: RunStream, action: Action): RunStream {
  if (action.kind === 'connection') return { ...state, connection: action.connection, error: action.error };
  let { view, changes } = state;
  const fresh: Frame[] = [];
  for (const frame of action.frames) {
    const next = foldFrame(view, frame);
    if (next === view) continue;
    view = next;
    fresh.push(frame);
    if (DETAIL_CUES.has(frame.type)) changes++;
  }
  if (!fresh.length) return state;
  const frames = [...state.frames, ...fresh].slice(-KEPT_FRAMES);
  return { ...state, view, frames, changes };
}

/**
 * Follow a run live: its events from the first, then as they are appended. A dropped connection
 * is taken up again after the last event seen (`Last-Event-ID`), with backoff; the server ends
 * the stream after the terminal event, and so does the page.
 */
export function useRunStream(api: FlexApi, runId: string): RunStream {
  const [state, dispatch] = useReducer(reduce, {
    view: emptyRunView(),
    frames: [],
    connection: 'connecting',
    changes: 0,
  });
  useEffect(() => {
    const abort = new AbortController();
    void follow(api, runId, abort.signal, dispatch);
    return () => abort.abort();
  }, [api, runId]);
  return state;
}

async function follow(api: FlexApi, runId: string, signal: AbortSignal, dispatch: (a: Action) => void) {
  let last = 0;
  let ended = false;
  for (let failures = 0; !signal.aborted;) {
    try {
      await api.events(runId, {
        lastEventId: last,
        signal,
        onOpen: () => dispatch({ kind: 'connection', connection: 'live' }),
        onFrame: (frame) => {
          last = Math.max(last, frame.position);
          ended ||= TERMINAL.has(frame.type);
          failures = 0;
          dispatch({ kind: 'frames', frames: [frame] });
        },
      });
      if (ended) return dispatch({ kind: 'connection', connection: 'ended' });
    } catch (error) {
      if (signal.aborted) return;
      const final = error instanceof ApiError && error.status < 500 && error.status !== 429;
      if (final) return dispatch({ kind: 'connection', connection: 'failed', error });
      dispatch({ kind: 'connection', connection: 'reconnecting', error });
    }
    failures++;
    await pause(Math.min(MAX_BACKOFF_MS, 500 * 2 ** failures), signal);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const DETAIL_DELAY_MS = 250;

/**
 * The run's read model (`GET runs/:id`), read again shortly after the stream cues a change
 * (`changes` grows) and whenever `refresh` is called; `asOf` is the stream position when asked, or
 * the run's last position the read model had applied, if that is earlier.
 */
export function useRunDetail(api: FlexApi, runId: string, stream: RunStream) {
  const [known, setKnown] = useState<DetailAsOf>();
  const [error, setError] = useState<unknown>();
  const position = useRef(0);
  position.current = stream.view.lastPosition;
  const refresh = useCallback(async () => {
    const asked = position.current;
    try {
      const detail = await api.run(runId);
      // As of what the read model had applied: under load it can answer before it caught up with
      // what the stream already showed, and taking it as of `asked` would show an older status.
      const asOf = Math.min(asked, detail.run.lastPosition ?? asked);
      setKnown({ detail, asOf });
      setError(undefined);
    } catch (e) {
      setError(e);
    }
  }, [api, runId]);
  useEffect(() => {
    const timer = setTimeout(() => void refresh(), stream.changes ? DETAIL_DELAY_MS : 0);
    return () => clearTimeout(timer);
  }, [refresh, stream.changes]);
  return { known, error, refresh };
}
