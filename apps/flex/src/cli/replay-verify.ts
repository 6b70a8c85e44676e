import { readFileSync } from 'node:fs';
import type { StoredEvent } from '@flex/event-store';
import { ExportFileError, parseExportFile, verifyReplay, type ReplayReport } from '@flex/replay';
import { ConfigError, loadConfig } from '@flex/runtime';
import { flexReplayAdapters } from '../replay/replay-adapters';
import { api, CliError, type CliContext } from './client';
import { EXIT } from './exit-codes';

/**
 * A run's stored events with their metadata: from an export file (offline), or from the server's
 * `GET runs/:id/export` (NDJSON, the same format). Bad input is exit 2, naming the line and field.
 */
export async function recordedEvents(ctx: CliContext | undefined, runId: string | undefined, file?: string) {
  if (file) return eventsOf(readExport(file), file, runId);
  const text = await fetchExport(ctx as CliContext, runId as string);
  if (text === undefined)
    throw new CliError(`this server has no GET ${exportPath(runId as string)}`, EXIT.error);
  return eventsOf(text, exportPath(runId as string), runId);
}

/**
 * Why a run was not re-decided online: the server cannot hand out its stored events (`no_export`:
 * older than verified replay), or not to this token (`forbidden`: a client exports only the runs it
 * started, an agent token none; `--verify` then exits 8 once the invariants are checked).
 */
export interface NotRedecided {
  checked: false;
  code: 'no_export' | 'forbidden';
  reason: string;
}

/** `replay --verify` online: the run re-decided from its export, or why that could not be done. */
export async function redecideRun(ctx: CliContext, runId: string): Promise<ReplayReport | NotRedecided> {
  let text: string | undefined;
  try {
    text = await fetchExport(ctx, runId);
  } catch (error) {
    if (!(error instanceof CliError) || error.http?.status !== 403) throw error;
    const reason = `GET ${exportPath(runId)} refused this token (${error.http.message ?? 'forbidden'}); re-decide with the run's owner or an operator token, or from an export (flex export, then replay --verify --file)`;
    return { checked: false, code: 'forbidden', reason };
  }
  if (text === undefined)
    return {
      checked: false,
      code: 'no_export',
      reason: `this server has no GET ${exportPath(runId)}; export the run and use --verify --file`,
    };
  return redecide(eventsOf(text, exportPath(runId), runId));
}

function eventsOf(text: string, source: string, runId: string | undefined): StoredEvent[] {
  let events: StoredEvent[];
  try {
    events = parseExportFile(text);
  } catch (error) {
    if (!(error instanceof ExportFileError)) throw error;
    throw new CliError(`${source}: ${error.message}`, EXIT.usage);
  }
  if (events.length === 0) throw new CliError(`${source}: no events to replay`, EXIT.usage);
  const streamId = events[0].streamId;
  if (runId && streamId !== `run-${runId}`)
    throw new CliError(`${source}: holds ${streamId}, not run ${runId}`, EXIT.usage);
  return events;
}

/**
 * Re-decide the run's events with this installation's decision logic and settings (FLEX_MAX_*,
 * FLEX_NODE_MAX_ATTEMPTS, as the run's deployment had them) and compare (docs/AUDIT.md).
 */
export function redecide(events: readonly StoredEvent[], env: NodeJS.ProcessEnv = process.env): ReplayReport {
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
  return verifyReplay(events, flexReplayAdapters(config));
}

/** What `flex replay --verify` says of a re-decision, one line each (stderr). */
export function describeReport(report: ReplayReport | NotRedecided): string[] {
  if ('checked' in report) return [`re-decided: not checked: ${report.reason}`];
  const { divergence: d } = report;
  const open = report.open ? `; the run has not ended: verified up to position ${report.lastPosition}` : '';
  const taken = report.fromRecord ? `, ${report.fromRecord} of them outside facts taken from the record` : '';
  if (!d) return [`re-decided: ok (${report.verified} of ${report.events} events${taken}${open})`];
  const via = d.via ? ` via ${d.via}` : '';
  const where = `event at position ${d.position ?? '(after the record)'} (version ${d.version}, ${d.type})`;
  return [
    `✗ re-decided: ${d.kind} at ${where}, decided by ${d.component}${via}`,
    `  field ${d.path || '(the whole event)'}: recorded ${show(d.recorded)}, now ${show(d.now)}`,
    `re-decided: ${report.verified} of ${report.events} events agree before it${open}`,
  ];
}

function show(value: unknown): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function readExport(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, EXIT.usage);
  }
}

const exportPath = (runId: string) => `runs/${encodeURIComponent(runId)}/export`;

/** The run's export; `undefined` from a server without the endpoint (older than verified replay). */
async function fetchExport(ctx: CliContext, runId: string): Promise<string | undefined> {
  try {
    return await (await api(ctx, 'GET', exportPath(runId), undefined, 'application/x-ndjson')).text();
  } catch (error) {
    if (error instanceof CliError && error.http?.status === 404 && error.http.code !== 'run_not_found')
      return undefined;
    throw error;
  }
}

/**
 * `flex replay [runId] --verify --file <export.ndjson> [--json]`: offline, no server and no token:
 * re-decide the exported run (exit 9 on a divergence, 0 when every event re-decides the same).
 */
export async function replayFileCommand(
  io: Pick<CliContext, 'out' | 'err'>,
  file: string,
  runId: string | undefined,
  json: boolean,
): Promise<number> {
  const report = redecide(await recordedEvents(undefined, runId, file));
  const ok = report.divergence === undefined;
  if (json) io.out(JSON.stringify({ runId: report.streamId.replace(/^run-/, ''), ok, replay: report }));
  else for (const line of describeReport(report)) io.err(line);
  return ok ? EXIT.ok : EXIT.verifyFailed;
}
