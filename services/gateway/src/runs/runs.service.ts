import { Inject, Injectable } from '@nestjs/common';
import {
  contentHash,
  normalizeEnvelope,
  runStreamId,
  type ExtractedSecret,
  type RunDetail,
} from '@flex/contracts';
import { checkUntrustedSchema } from '@flex/facets';
import {
  countWorkingRuns,
  workingRunsAtMost,
  getRunDetail,
  getRunDetailAt,
  listRuns,
  projectionsFor,
  type RunCursor,
  type RunFilter,
  type RunPage,
} from '@flex/read-models';
import { policyKeys } from '@flex/run-model';
import { RUNTIME, secretKeyPattern, type SecretVault, type ServiceRuntime } from '@flex/runtime';
import { typedEvent, type ArchiveRecord } from '@flex/event-store';
import type { Principal } from '../auth/api-tokens';
import { CLIENT_LIMITS } from '../auth/auth.guard';
import { apiError, tooManyRequests } from '../http/api-error';
import type { ClientLimits } from '../limits/client-limits';
import { KeyedLock } from '../limits/keyed-lock';
import { archivedOwner, archiveView, findRunArchive } from './archived-run';

/** Least Retry-After of a start refused for too many working runs (when one rests is unknown): a hint. */
const RUNS_RETRY_AFTER_SECONDS = 2;

/** How long a read waits for the read models to reach what was committed before it; then it reads what is there. */
const FRESH_TIMEOUT_MS = 2_000;

/** Retry-After of a start refused while Flex is starting (readiness is usually seconds away). */
const STARTING_RETRY_AFTER_SECONDS = 1;

/** A run started, or the one an earlier request with the same key started (`archive`: since archived). */
export interface StartedRun {
  runId: string;
  streamId: string;
  duplicate: boolean;
  archive?: ArchiveRecord;
}

export interface StartRequest {
  body: unknown;
  principal: Principal;
  correlationId?: string;
  traceparent?: string;
  idempotencyKey?: string;
}

@Injectable()
export class RunsService {
  private readonly starts = new KeyedLock();
  private readonly secretKeyPattern: RegExp;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(CLIENT_LIMITS) private readonly limits: ClientLimits,
  ) {
    this.secretKeyPattern = secretKeyPattern(runtime.config);
  }

  /**
   * Validate and normalize the envelope, then append `start` and the first `plan_requested`.
   * A bad envelope is a 400 naming the path and changes nothing. The same Idempotency-Key from the
   * same principal starts one run, however often it is sent, even once retention has archived it
   * (and counts once in `flex_runs_started_total`, which counts each `start` committed). A principal's starts take turns,
   * so its working runs are counted (FLEX_LIMIT_RUNS_PER_TOKEN) with every earlier start already appended. Secrets are the
   * normalizer's first pass (the choke point): their values go to the secret store before `start`
   * is appended, and nothing after this line sees them.
   */
  start(request: StartRequest): Promise<StartedRun> {
    const key = request.idempotencyKey
      ? contentHash({ principal: request.principal.id, key: request.idempotencyKey })
      : undefined;
    const runId = key ? `run_${key.slice(0, 32)}` : `run_${this.runtime.ids.uuid().replace(/-/g, '')}`;
    const streamId = runStreamId(runId);
    this.assertStarted();
    return this.starts.run(request.principal.id, async () => {
      const again = key !== undefined && (await this.runtime.store.streamVersion(streamId)) > 0;
      if (again) return { runId, streamId, duplicate: true };
      // The key's run may have ended long ago and been archived (its events, and its key, are gone
      // from the store): it is still that run, not a new one under the same id.
      const archive = key === undefined ? undefined : await findRunArchive(this.runtime, streamId);
      if (archive) return { runId, streamId, duplicate: true, archive };
      await this.admitWorkingRun(request.principal);
      const normalized = validEnvelope(request.body, this.secretKeyPattern);
      const duplicate = await this.append(request, runId, key, normalized);
      return { runId, streamId, duplicate };
    });
  }

  /**
   * `task` (which sets a run of the principal working: a resume), once the principal has a working
   * run to spare, in turn with its starts (FLEX_LIMIT_RUNS_PER_TOKEN; 429 `too_many_runs` otherwise).
   */
  withWorkingRun<T>(principal: Principal, task: () => Promise<T>): Promise<T> {
    this.assertStarted();
    return this.starts.run(principal.id, async () => {
      await this.admitWorkingRun(principal);
      return task();
    });
  }

  /**
   * 503 `not_ready` until every startup step is done (GET /readyz): a run started before the
   * capabilities the system ships have registered would fail for want of them. 503 `shutting_down`
   * once this gateway stops: the client retries, and reaches another one.
   */
  private assertStarted(): void {
    const { readiness } = this.runtime;
    if (readiness.stopping)
      throw apiError(503, 'shutting_down', 'this gateway is shutting down; try again', {
        retryAfterSeconds: STARTING_RETRY_AFTER_SECONDS,
      });
    if (readiness.started) return;
    throw apiError(
      503,
      'not_ready',
      'Flex is starting; try again shortly (GET /readyz says when it is ready)',
      {
        retryAfterSeconds: STARTING_RETRY_AFTER_SECONDS,
      },
    );
  }

  /**
   * 429 when the principal has as many working runs as it may (counted on a caught-up read model).
   * Most starts are well below the limit: a bound taken on the read model as it stands says so in
   * one statement, and only a start near the limit catches the projections up to count exactly.
   */
  private async admitWorkingRun(principal: Principal): Promise<void> {
    const limit = this.runtime.config.FLEX_LIMIT_RUNS_PER_TOKEN;
    if ((await workingRunsAtMost(this.runtime.database.db, principal.id)) < limit) return;
    await this.fresh();
    const working = await countWorkingRuns(this.runtime.database.db, principal.id);
    if (working >= limit)
      throw tooManyRequests(
        this.limits.refusal(principal.id, {
          code: 'too_many_runs',
          message: `${working} runs of this token are planning or running; the limit is ${limit}`,
          limit,
          retryAfterSeconds: RUNS_RETRY_AFTER_SECONDS,
        }),
      );
  }

  /** Append `start` and `plan_requested`; true when an earlier request with the same key got there first. */
  private async append(
    request: StartRequest,
    runId: string,
    key: string | undefined,
    normalized: Extract<ReturnType<typeof normalizeEnvelope>, { ok: true }>,
  ): Promise<boolean> {
    const { ids, clock, store, secrets } = this.runtime;
    assertCanKeep(secrets, normalized.secrets);
    const envelope = normalized.envelope;
    const metadata = {
      correlationId: request.correlationId ?? ids.uuid(),
      traceparent: request.traceparent,
      actor: request.principal.id,
      producer: 'gateway',
    };
    const timestamp = clock.now().toISOString();
    const owner = { principal: request.principal.id, role: request.principal.role };
    const start = { runId, threadId: envelope.threadId, envelope, normalization: normalized.changes, owner };
    const planRequested = { attempt: 1, reason: 'initial' as const, policyKeys: policyKeys(envelope) };
    // Before the append: a run's events never hold a reference whose value is not stored yet.
    await secrets.keep(runId, normalized.secrets);
    try {
      const result = await store.append(
        runStreamId(runId),
        [
          { id: ids.uuid(), type: 'start', timestamp, metadata, payload: start },
          { id: ids.uuid(), type: 'plan_requested', timestamp, metadata, payload: planRequested },
        ],
        { expectedVersion: 'no_stream', idempotencyKey: key ? `gateway:start:${key}` : undefined },
      );
      return result.duplicate;
    } catch (error) {
      if (key && (error as { code?: string }).code === 'WRONG_EXPECTED_VERSION') return true;
      throw error;
    }
  }

  /**
   * Read your writes: a client that just saw `complete` on the stream must not read an older read
   * model. Everything committed before this call is at or below the head position; a long
   * transaction elsewhere on the server can hold the gap-safe tail back, so wait for it, briefly.
   */
  private async fresh(): Promise<void> {
    const head = await this.runtime.store.headPosition();
    await projectionsFor(this.runtime.database.db, this.runtime.store).catchUpThrough(head, FRESH_TIMEOUT_MS);
  }

  /** A page of runs: a client's own, anyone's for an operator. */
  async list(
    principal: Principal,
    filter: Omit<RunFilter, 'owner'>,
    limit: number,
    after?: RunCursor,
  ): Promise<RunPage> {
    await this.fresh();
    const owner = principal.role === 'client' ? principal.id : undefined;
    return listRuns(this.runtime.database.db, { ...filter, owner, limit, after });
  }

  /** A client sees only its own runs: another's run is a 404, as if it did not exist. */
  async detail(principal: Principal, runId: string): Promise<RunDetail> {
    await this.fresh();
    const detail = visible(principal, runId, await getRunDetail(this.runtime.database.db, runId));
    // An archived run has ended and kept no plan versions: only then is its archive row looked up.
    if (TERMINAL_STATUSES.has(detail.run.status) && detail.planVersions.length === 0) {
      const archive = await findRunArchive(this.runtime, runStreamId(runId));
      if (archive) return { ...detail, run: { ...detail.run, archive: archiveView(archive) } };
    }
    return detail;
  }

  /** The run as of the event at `position` (time travel: see getRunDetailAt); straight from its stream. */
  async detailAt(principal: Principal, runId: string, position: number): Promise<RunDetail> {
    const detail = await getRunDetailAt(this.runtime.database.db, runId, position);
    if (!detail) await refuseArchived(this.runtime, principal, runId);
    return visible(principal, runId, detail, ` at position ${position}`);
  }

  /** Ownership check straight from the stream's first event (read models may lag a moment behind). */
  async assertVisible(principal: Principal, runId: string): Promise<string> {
    return (await this.visibleRun(principal, runId)).streamId;
  }

  /** The run's stream, and its archive row when retention archived it (its events are then gone). */
  async visibleRun(
    principal: Principal,
    runId: string,
  ): Promise<{ streamId: string; archive?: ArchiveRecord }> {
    const streamId = runStreamId(runId);
    const [first] = await this.runtime.store.readStream(streamId, { limit: 1 });
    const start = first && typedEvent(first);
    const archive = first ? undefined : await findRunArchive(this.runtime, streamId);
    const owner = start?.type === 'start' ? start.payload.owner.principal : archive && archivedOwner(archive);
    if ((!first && !archive) || (principal.role === 'client' && owner !== principal.id))
      throw apiError(404, 'run_not_found', `no run ${runId}`, { runId });
    return { streamId, archive };
  }
}

const TERMINAL_STATUSES = new Set<string>(['completed', 'failed', 'cancelled']);

/**
 * Time travel folds the run's stored events: an archived run has none left, so `?at=` is a 410
 * naming the archive (export the run, then replay it offline), unless the principal may not see it.
 */
async function refuseArchived(runtime: ServiceRuntime, principal: Principal, runId: string): Promise<void> {
  const archive = await findRunArchive(runtime, runStreamId(runId));
  if (!archive || (principal.role === 'client' && archivedOwner(archive) !== principal.id)) return;
  throw apiError(
    410,
    'run_archived',
    `run ${runId} is archived: time travel reads stored events; export it (flex export) to see its history`,
    { runId, location: archive.location },
  );
}

/** The run, when the principal may see it; a 404 otherwise (a client sees its own runs only). */
function visible(principal: Principal, runId: string, detail: RunDetail | undefined, when = ''): RunDetail {
  if (!detail || (principal.role === 'client' && detail.run.owner !== principal.id))
    throw apiError(404, 'run_not_found', `no run ${runId}${when}`, { runId });
  return detail;
}

/** Distributed services without FLEX_SECRET_KEY cannot seal a secret: refused before anything is stored. */
function assertCanKeep(vault: SecretVault, secrets: readonly ExtractedSecret[]): void {
  if (secrets.length === 0 || vault.available) return;
  throw apiError(
    503,
    'secrets_unavailable',
    'this Flex cannot keep secrets (no FLEX_SECRET_KEY): send the envelope without secret values',
    { paths: secrets.map((s) => s.path) },
  );
}

/** The envelope, normalized; a 400 naming the path when it is not one, or its schema is unsafe. */
function validEnvelope(
  body: unknown,
  pattern: RegExp,
): Extract<ReturnType<typeof normalizeEnvelope>, { ok: true }> {
  const normalized = normalizeEnvelope(body, { secretKeyPattern: pattern });
  if (!normalized.ok) {
    const first = normalized.errors[0];
    throw apiError(
      400,
      'invalid_envelope',
      `${at(first.path)}${first.message}${first.hint ? ` (${first.hint})` : ''}`,
      { issues: normalized.errors.slice(0, 50) },
    );
  }
  const schemaIssues = checkUntrustedSchema(normalized.envelope.outputContract.schema);
  if (schemaIssues.length) {
    const first = schemaIssues[0];
    throw apiError(400, 'invalid_output_contract', `${at(first.path)}${first.message}`, {
      issues: schemaIssues.slice(0, 50),
    });
  }
  return normalized;
}

/** `path: ` before a message; the root has no path, and a very deep one is shortened in the middle. */
function at(path: string): string {
  if (!path) return '';
  return `${path.length > 160 ? `${path.slice(0, 70)}…${path.slice(-70)}` : path}: `;
}
