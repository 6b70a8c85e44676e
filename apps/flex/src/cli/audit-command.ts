import type { ChainVerifyResponse } from '@flex/contracts';
import {
  checkHeadSignature,
  ExportFormatError,
  parseExport,
  verifyExport,
  type ExportVerdict,
} from '@flex/event-store';
import { readFileSync, writeFileSync } from 'node:fs';
import { api, CliError, type CliContext } from './client';
import { EXIT } from './exit-codes';

const runPath = (runId: string, rest: string) => `runs/${encodeURIComponent(runId)}/${rest}`;

/**
 * `flex export <runId> [--out <file>]`: the run's events with their chain links and, last, its chain
 * head, as NDJSON (signed when the gateway has FLEX_CHAIN_SIGNING_KEY), on stdout or into the file
 * (then a summary on stdout; `--json`: `{ runId, out, events, head }`).
 */
export async function exportCommand(
  ctx: CliContext,
  runId: string,
  options: { out?: string; json: boolean },
): Promise<number> {
  const text = await (
    await api(ctx, 'GET', runPath(runId, 'export'), undefined, 'application/x-ndjson')
  ).text();
  if (options.out === undefined) {
    ctx.out(text.replace(/\n$/, ''));
    return EXIT.ok;
  }
  const { events, head } = parseExport(text);
  try {
    writeFileSync(options.out, text);
  } catch (error) {
    throw new CliError(`cannot write ${options.out}: ${(error as Error).message}`, EXIT.usage);
  }
  if (options.json) ctx.out(JSON.stringify({ runId, out: options.out, events: events.length, head }));
  else ctx.out(`${runId}: ${events.length} events to ${options.out}, head v${head.version} ${head.hash}`);
  return EXIT.ok;
}

/**
 * `flex verify <runId> [--against <export>]`: whether the run's stored events still form their
 * chain (exit 9 naming the first bad event when not). With an earlier export of the run, the stored
 * chain must also still reach that export's head: events cut from the end, or a chain rewritten
 * from some event on, show only then (a signed head is checked first when `key` is given).
 */
export async function verifyCommand(
  ctx: CliContext,
  runId: string,
  options: { against?: string; json: boolean; key?: string },
): Promise<number> {
  const query = options.against === undefined ? '' : `?${headQuery(options.against, options.key)}`;
  const verdict = (await (
    await api(ctx, 'GET', runPath(runId, `verify${query}`))
  ).json()) as ChainVerifyResponse;
  if (options.json) ctx.out(JSON.stringify(verdict));
  else ctx.out(verdictLine(runId, verdict));
  return verdict.ok ? EXIT.ok : EXIT.verifyFailed;
}

/**
 * `flex verify-export <file>`: an export checked offline, without Flex: its chain against its head,
 * and the head's signature when FLEX_CHAIN_SIGNING_KEY is set here. A file that is not an export
 * is exit 9 too, naming the line.
 */
export function verifyExportCommand(
  out: (line: string) => void,
  file: string,
  options: { json: boolean; key?: string },
): number {
  let verdict: ExportVerdict;
  try {
    verdict = verifyExport(readExport(file), options.key);
  } catch (error) {
    if (error instanceof ExportFormatError)
      throw new CliError(`${file} is not an intact export: ${error.message}`, EXIT.verifyFailed);
    throw error;
  }
  const ok = verdict.ok && verdict.signature !== 'invalid';
  if (options.json) out(JSON.stringify({ ...verdict, ok, file }));
  else out(`${verdictLine(file, verdict)}; head signature ${verdict.signature}`);
  return ok ? EXIT.ok : EXIT.verifyFailed;
}

function verdictLine(subject: string, verdict: Omit<ChainVerifyResponse, 'runId'>): string {
  const { firstBad: bad, head } = verdict;
  if (!bad) return `${subject}: chain intact, ${verdict.events} events, head v${head.version} ${head.hash}`;
  const at = bad.eventId === null ? `version ${bad.version} (missing)` : `event ${bad.eventId}`;
  const where = bad.position === null ? '' : ` at position ${bad.position}, version ${bad.version}`;
  return `${subject}: TAMPERED: ${bad.problem}: ${at}${where}: ${bad.detail}`;
}

/** The export's head as the verify query; a head whose signature fails under `key` is no reference. */
function headQuery(file: string, key?: string): string {
  let head;
  try {
    ({ head } = parseExport(readExport(file)));
  } catch (error) {
    if (error instanceof ExportFormatError) throw new CliError(`${file}: ${error.message}`, EXIT.usage);
    throw error;
  }
  if (checkHeadSignature(head, key) === 'invalid')
    throw new CliError(
      `${file}: its head signature is invalid: not a head to verify against`,
      EXIT.verifyFailed,
    );
  return new URLSearchParams({ version: String(head.version), hash: head.hash }).toString();
}

function readExport(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, EXIT.usage);
  }
}
