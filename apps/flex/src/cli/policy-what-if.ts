import {
  normalizeRuntimePolicies,
  WHAT_IF_RUNS_DEFAULT,
  WHAT_IF_RUNS_MAX,
  type RuntimePolicy,
} from '@flex/contracts';
import { startedBefore, whatIfReport, whatIfRun, type WhatIfRun } from '@flex/replay';
import { ConfigError, loadConfig } from '@flex/runtime';
import { flexReplayAdapters } from '../replay/replay-adapters';
import { CliError, type CliContext } from './client';
import { EXIT } from './exit-codes';
import { readJsonFile } from './json-file';
import { UsageError } from './parse-args';
import { describeWhatIf } from './policy-what-if-view';
import { recordedEvents } from './replay-verify';
import { runsPage } from './runs-command';

export interface WhatIfOptions {
  policies?: string;
  since?: string;
  runs?: string;
  limit?: string;
  merge: boolean;
  json: boolean;
}

/** The statuses of a finished run: what a what-if looks at when no run is named. */
const FINISHED = 'completed,failed,cancelled';

/**
 * `flex policy what-if --policies <file.json> [--since <iso>] [--runs <id,id>] [--limit <n>]`: each
 * run's events (read as `flex replay --verify` reads them: the run's export) re-decided here with
 * the candidate policies in place of the run's own (docs/AUDIT.md, "Policy what-if"). Nothing is
 * written. A bad policy file is exit 2 naming each JSON path; the report is exit 0 whatever changes.
 */
export async function policyWhatIfCommand(ctx: CliContext, options: WhatIfOptions): Promise<number> {
  if (!options.policies) throw new UsageError('policy what-if needs --policies <file.json>');
  const policies = candidatePolicies(options.policies);
  const limit = parseLimit(options.limit);
  const adapters = flexReplayAdapters(decisionConfig());
  const mode = options.merge ? 'merge' : 'replace';
  const ids = await selectRuns(ctx, options, limit);
  const runs: WhatIfRun[] = [];
  for (const runId of ids) {
    const events = await recordedEvents(ctx, runId);
    if (startedBefore(events, options.since)) continue;
    runs.push(whatIfRun(events, policies, adapters, mode));
  }
  const report = whatIfReport(policies, mode, runs);
  if (options.json) ctx.out(JSON.stringify(report));
  else for (const line of describeWhatIf(report)) ctx.out(line);
  return EXIT.ok;
}

/** The candidate set, validated and normalized as an envelope's runtime policies are. */
export function candidatePolicies(file: string): RuntimePolicy[] {
  const result = normalizeRuntimePolicies(readJsonFile(file));
  if (result.ok) return result.runtime;
  const lines = result.errors.map(
    (e) => `  ${e.path || '(root)'}: ${e.code}: ${e.message}${e.hint ? ` (${e.hint})` : ''}`,
  );
  throw new CliError(
    `${file}: not a runtime policy set { "runtime": [...] }\n${lines.join('\n')}`,
    EXIT.usage,
  );
}

function parseLimit(text: string | undefined): number {
  if (text === undefined) return WHAT_IF_RUNS_DEFAULT;
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n < 1 || n > WHAT_IF_RUNS_MAX)
    throw new UsageError(`--limit: expected an integer from 1 to ${WHAT_IF_RUNS_MAX}, got ${text}`);
  return n;
}

/** `--runs` as given (at most `limit`), else the newest finished runs (created since `--since`). */
async function selectRuns(ctx: CliContext, options: WhatIfOptions, limit: number): Promise<string[]> {
  if (options.since !== undefined && Number.isNaN(Date.parse(options.since)))
    throw new UsageError(`--since: expected an ISO-8601 time, got ${options.since}`);
  if (options.runs !== undefined) {
    const ids = options.runs.split(',').filter((id) => id !== '');
    if (ids.length === 0) throw new UsageError('--runs: expected run ids, comma-separated');
    if (ids.length > limit)
      throw new UsageError(
        `--runs: ${ids.length} runs, more than --limit ${limit} (at most ${WHAT_IF_RUNS_MAX})`,
      );
    return ids;
  }
  const since = options.since === undefined ? undefined : new Date(Date.parse(options.since)).toISOString();
  const page = await runsPage(ctx, { status: FINISHED, since, limit: String(limit) });
  return page.runs.map((r) => r.runId);
}

/** The decision settings (FLEX_MAX_*, FLEX_NODE_MAX_ATTEMPTS) of this environment, as replay --verify. */
function decisionConfig() {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
}
