import type { PolicyWhatIfRequest, PolicyWhatIfResponse } from '@flex/contracts';
import { apiErrorOf, ApiError } from './api-error';
import { readSse } from './sse';
import type {
  CapabilityView,
  ConversationTurn,
  Frame,
  HitlResolution,
  HitlResolved,
  RunDetail,
  RunsPage,
  RunSummary,
  SandboxMetadata,
} from './types';

const BASE = '/api/v1/flex/';

/** The query parameter a server-side cursor travels in, and the prefix of the cursors this module makes. */
const CURSOR_PARAM = 'cursor';
const OFFSET_CURSOR = 'offset:';
/** The most runs one `GET runs` answers (the API's own cap). */
const MAX_LIMIT = 500;

/**
 * The one module that speaks to the API: every path, header and answer shape the dashboard
 * depends on is here, so a change of the API is a change of this file. Every call carries the
 * bearer token; a non-2xx answer throws an {@link ApiError}.
 */
export class FlexApi {
  constructor(private readonly token: string) {}

  /** Whether `GET runs` pages by cursor (`{ runs, next }`); unknown until it has answered once. */
  private serverPages: boolean | undefined;

  /**
   * A page of runs, newest first. An API that pages by cursor answers `{ runs, next }`; one that
   * does not (today's, or a plain array) gets asked for a longer list, and the page is cut from it.
   */
  async listRuns(query: { status?: string; pageSize: number; cursor?: string }): Promise<RunsPage> {
    const emulated = query.cursor?.startsWith(OFFSET_CURSOR) || this.serverPages === false;
    const offset = query.cursor?.startsWith(OFFSET_CURSOR)
      ? Number(query.cursor.slice(OFFSET_CURSOR.length))
      : 0;
    const params = new URLSearchParams();
    params.set('limit', String(emulated ? Math.min(MAX_LIMIT, offset + query.pageSize + 1) : query.pageSize));
    if (query.status) params.set('status', query.status);
    if (query.cursor && !emulated) params.set(CURSOR_PARAM, query.cursor);
    const body = await this.json<unknown>('GET', `runs?${params.toString()}`);
    if (this.serverPages === undefined) {
      this.serverPages = hasCursor(body);
      if (!this.serverPages) return this.listRuns(query);
    }
    return pageOf(body, offset, query.pageSize);
  }

  /** Policy what-if (operator): recorded runs re-decided with candidate runtime policies; nothing written. */
  policyWhatIf(request: PolicyWhatIfRequest): Promise<PolicyWhatIfResponse> {
    return this.json('POST', 'admin/policy-what-if', request);
  }

  run(runId: string): Promise<RunDetail> {
    return this.json('GET', `runs/${encodeURIComponent(runId)}`);
  }

  /** The run as it stood once the event at `position` was applied (time travel). */
  runAt(runId: string, position: number): Promise<RunDetail> {
    return this.json('GET', `runs/${encodeURIComponent(runId)}?at=${position}`);
  }

  async capabilities(): Promise<CapabilityView[]> {
    const body = await this.json<{ capabilities?: CapabilityView[] } | CapabilityView[]>(
      'GET',
      'capabilities',
    );
    return Array.isArray(body) ? body : (body.capabilities ?? []);
  }

  resolveHitl(resolution: HitlResolution): Promise<HitlResolved> {
    return this.json('POST', 'hitl/resolve', resolution);
  }

  cancel(runId: string, reason?: string): Promise<{ alreadyCancelled: boolean }> {
    return this.json('POST', `runs/${encodeURIComponent(runId)}/cancel`, reason ? { reason } : {});
  }

  /** Pause a running run (or one waiting for a human) without a policy; `run.resume` continues it. */
  pause(runId: string, reason?: string): Promise<{ event: { position: number } }> {
    return this.json('POST', `runs/${encodeURIComponent(runId)}/pause`, reason ? { reason } : {});
  }

  triggerPolicy(runId: string, policyId: string): Promise<{ events: Array<{ type: string }> }> {
    const path = `runs/${encodeURIComponent(runId)}/policies/${encodeURIComponent(policyId)}/trigger`;
    return this.json('POST', path);
  }

  /**
   * Resume a paused run. The API answers with the run's stream; the dashboard follows the run on
   * its own stream, so this one is closed as soon as the answer is known to be a success.
   */
  async resume(runId: string, expectedPlanVersion: number): Promise<void> {
    await this.openAndClose('run.resume', { runId, expectedPlanVersion });
  }

  /** Start a run; its id comes back in `X-Flex-Run-Id` before the first event (the stream is then closed). */
  async startRun(envelope: unknown, idempotencyKey: string): Promise<{ runId: string }> {
    const runId = await this.openAndClose('run.stream', envelope, { 'Idempotency-Key': idempotencyKey });
    if (!runId) throw new ApiError(502, 'no_run_id', 'the API started a run but did not say its id');
    return { runId };
  }

  /**
   * Follow a run's events from after `lastEventId` until the stream ends. fetch, not EventSource:
   * EventSource cannot send the Authorization header.
   */
  async events(
    runId: string,
    options: {
      lastEventId?: number;
      signal: AbortSignal;
      onOpen?: () => void;
      onFrame: (frame: Frame) => void;
    },
  ): Promise<void> {
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (options.lastEventId) headers['Last-Event-ID'] = String(options.lastEventId);
    const response = await this.fetch(
      'GET',
      `runs/${encodeURIComponent(runId)}/events`,
      undefined,
      headers,
      options.signal,
    );
    if (!response.ok || !response.body) throw await apiErrorOf(response);
    options.onOpen?.();
    await readSse(response.body, (message) => {
      const frame = JSON.parse(message.data) as Frame;
      // A live log line of the run (no `type`, no `id:` of its own) is not an event: not shown.
      if (message.event === 'log' && frame.type !== 'log') return;
      options.onFrame({ ...frame, position: Number(message.id) });
    });
  }

  sandboxMetadata(): Promise<SandboxMetadata> {
    return this.json('GET', 'sandbox/metadata');
  }

  startConversation(body: {
    templateId?: string;
    draft?: unknown;
    message?: string;
  }): Promise<ConversationTurn> {
    return this.json('POST', 'sandbox/envelope/conversation/start', body);
  }

  respond(conversationId: string, body: { message: string; draft?: unknown }): Promise<ConversationTurn> {
    return this.json(
      'POST',
      `sandbox/envelope/conversation/${encodeURIComponent(conversationId)}/respond`,
      body,
    );
  }

  private async json<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await this.fetch(method, path, body, { Accept: 'application/json' });
    if (!response.ok) throw await apiErrorOf(response);
    return (await response.json()) as T;
  }

  /** POST to an SSE endpoint: an error answer throws; a stream is closed at once. Returns X-Flex-Run-Id. */
  private async openAndClose(
    path: string,
    body: unknown,
    extra: Record<string, string> = {},
  ): Promise<string | null> {
    const abort = new AbortController();
    const response = await this.fetch(
      'POST',
      path,
      body,
      { Accept: 'text/event-stream', ...extra },
      abort.signal,
    );
    if (!response.ok || !response.headers.get('content-type')?.includes('text/event-stream'))
      throw await apiErrorOf(response);
    abort.abort();
    return response.headers.get('x-flex-run-id');
  }

  private fetch(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<Response> {
    const all: Record<string, string> = { ...headers, Authorization: `Bearer ${this.token}` };
    if (method === 'POST') all['Content-Type'] = 'application/json';
    return fetch(`${BASE}${path}`, {
      method,
      headers: all,
      body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
      signal,
      cache: 'no-store',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
  }
}

/** A page out of what `GET runs` answered: the API's own page, or a slice of a longer list. */
export function pageOf(body: unknown, offset: number, pageSize: number): RunsPage {
  const list = Array.isArray(body) ? body : ((body as { runs?: unknown })?.runs ?? []);
  const runs = (Array.isArray(list) ? list : []) as RunSummary[];
  if (hasCursor(body)) {
    const next = (body as { next?: unknown }).next;
    return { runs, next: typeof next === 'string' && next ? next : undefined };
  }
  const page = runs.slice(offset, offset + pageSize);
  const more = runs.length > offset + pageSize && offset + pageSize < MAX_LIMIT;
  return { runs: page, next: more ? `${OFFSET_CURSOR}${offset + pageSize}` : undefined };
}

const hasCursor = (body: unknown): boolean =>
  !Array.isArray(body) && typeof body === 'object' && body !== null && 'next' in body;
