import { Inject, Injectable } from '@nestjs/common';
import { contentHash, normalizeEnvelope, runStreamId } from '@flex/contracts';
import { checkUntrustedSchema } from '@flex/facets';
import { getRunDetail, listRuns, projectionsFor, type RunDetail, type RunSummary } from '@flex/read-models';
import { policyKeys } from '@flex/run-model';
import { RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { typedEvent } from '@flex/event-store';
import type { Principal } from '../auth/api-tokens';
import { apiError } from '../http/api-error';

export interface StartRequest {
  body: unknown;
  principal: Principal;
  correlationId?: string;
  traceparent?: string;
  idempotencyKey?: string;
}

@Injectable()
export class RunsService {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  /**
   * Validate and normalize the envelope, then append `start` and the first `plan_requested`.
   * A bad envelope is a 400 naming the path and changes nothing. The same Idempotency-Key from the
   * same principal starts one run, however often it is sent.
   */
  async start(request: StartRequest): Promise<{ runId: string; streamId: string; duplicate: boolean }> {
    const normalized = normalizeEnvelope(request.body);
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
    const { ids, clock, store } = this.runtime;
    const key = request.idempotencyKey
      ? contentHash({ principal: request.principal.id, key: request.idempotencyKey })
      : undefined;
    const runId = key ? `run_${key.slice(0, 32)}` : `run_${ids.uuid().replace(/-/g, '')}`;
    const streamId = runStreamId(runId);
    const envelope = normalized.envelope;
    const metadata = {
      correlationId: request.correlationId ?? ids.uuid(),
      traceparent: request.traceparent,
      actor: request.principal.id,
      producer: 'gateway',
    };
    const timestamp = clock.now().toISOString();
    try {
      const result = await store.append(
        streamId,
        [
          {
            id: ids.uuid(),
            type: 'start',
            timestamp,
            metadata,
            payload: {
              runId,
              threadId: envelope.threadId,
              envelope,
              normalization: normalized.changes,
              owner: { principal: request.principal.id, role: request.principal.role },
            },
          },
          {
            id: ids.uuid(),
            type: 'plan_requested',
            timestamp,
            metadata,
            payload: { attempt: 1, reason: 'initial', policyKeys: policyKeys(envelope) },
          },
        ],
        { expectedVersion: 'no_stream', idempotencyKey: key ? `gateway:start:${key}` : undefined },
      );
      this.runtime.metrics.inc('flex.run.started');
      return { runId, streamId, duplicate: result.duplicate };
    } catch (error) {
      if (key && (error as { code?: string }).code === 'WRONG_EXPECTED_VERSION')
        return { runId, streamId, duplicate: true };
      throw error;
    }
  }

  /** Read your writes: a client that just saw `complete` on the stream must not read an older read model. */
  private async fresh(): Promise<void> {
    await projectionsFor(this.runtime.database.db, this.runtime.store).catchUp();
  }

  async list(principal: Principal, limit: number, status?: string): Promise<RunSummary[]> {
    await this.fresh();
    return listRuns(this.runtime.database.db, {
      owner: principal.role === 'client' ? principal.id : undefined,
      limit,
      status,
    });
  }

  /** A client sees only its own runs: another's run is a 404, as if it did not exist. */
  async detail(principal: Principal, runId: string): Promise<RunDetail> {
    await this.fresh();
    const detail = await getRunDetail(this.runtime.database.db, runId);
    if (!detail || (principal.role === 'client' && detail.run.owner !== principal.id)) {
      throw apiError(404, 'run_not_found', `no run ${runId}`, { runId });
    }
    return detail;
  }

  /** Ownership check straight from the stream's first event (read models may lag a moment behind). */
  async assertVisible(principal: Principal, runId: string): Promise<string> {
    const streamId = runStreamId(runId);
    const [first] = await this.runtime.store.readStream(streamId, { limit: 1 });
    const start = first && typedEvent(first);
    const owner = start?.type === 'start' ? start.payload.owner.principal : undefined;
    if (!first || (principal.role === 'client' && owner !== principal.id))
      throw apiError(404, 'run_not_found', `no run ${runId}`, { runId });
    return streamId;
  }
}

/** `path: ` before a message; the root has no path, and a very deep one is shortened in the middle. */
function at(path: string): string {
  if (!path) return '';
  return `${path.length > 160 ? `${path.slice(0, 70)}…${path.slice(-70)}` : path}: `;
}
