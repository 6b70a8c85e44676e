import { api, cliContext, CliError, type CliContext } from './client';
import { EXIT } from './exit-codes';
import { parseArgv, UsageError, type ParsedCommand } from './parse-args';
import { helpFor } from './usage';

// Each command's module is loaded when that command runs (`await import`): the replay and what-if
// commands bring the services' deciders and the runtime, the audit commands the event store, and
// loading them all took 1.4 s of every `flex` start, `flex --help` included.

/**
 * `flex`: parse the command line strictly, run the command, and answer its exit code (see EXIT).
 * Errors are one line on stderr (with --json, a JSON document `{ error: { message, exitCode } }`).
 */
export async function main(argv: string[], context: () => CliContext = cliContext): Promise<number> {
  let json = argv.includes('--json');
  try {
    const parsed = parseArgv(argv);
    json = parsed.json;
    if (parsed.help || parsed.command.name === 'help') return help(parsed);
    // Offline: no Flex, no token.
    if (parsed.command.name === 'verify-export') {
      const { verifyExportCommand } = await import('./audit-command');
      return await verifyExportCommand((l) => process.stdout.write(`${l}\n`), parsed.args.file as string, {
        json,
        key: process.env.FLEX_CHAIN_SIGNING_KEY,
      });
    }
    if (parsed.command.name === 'replay' && parsed.flags.file !== undefined) return await offline(parsed);
    return await dispatch(context(), parsed);
  } catch (error) {
    const known = error instanceof CliError;
    const exitCode = known ? error.exitCode : EXIT.error;
    const message = known ? error.message : ((error as Error).stack ?? String(error));
    if (json && !(error instanceof UsageError))
      process.stderr.write(
        `${JSON.stringify({ error: { message, exitCode, http: known ? error.http : undefined } })}\n`,
      );
    else process.stderr.write(`flex: ${message}\n`);
    return exitCode;
  }
}

/** `replay --verify --file`: offline, before any server or token is looked for. */
async function offline({ flags, args, json }: ParsedCommand): Promise<number> {
  if (flags.verify !== true)
    throw new UsageError('--file is read by --verify: flex replay --verify --file <f>');
  const { replayFileCommand } = await import('./replay-verify');
  const io = {
    out: (l: string) => process.stdout.write(`${l}\n`),
    err: (l: string) => process.stderr.write(`${l}\n`),
  };
  return replayFileCommand(io, flags.file as string, args.runId, json);
}

function help(parsed: ParsedCommand): number {
  const name = parsed.command.name === 'help' ? parsed.args.command : parsed.command.name;
  const text = helpFor(name);
  if (text === undefined) throw new UsageError(`unknown command ${name}`);
  process.stdout.write(`${text}\n`);
  return EXIT.ok;
}

async function dispatch(ctx: CliContext, { command, args, flags, json }: ParsedCommand): Promise<number> {
  const str = (name: string) => flags[name] as string | undefined;
  const bool = (name: string) => flags[name] === true;
  const runId = args.runId as string;
  switch (command.name) {
    case 'run':
      return (await import('./run-command')).runCommand(ctx, args['envelope.json'] as string, {
        wait: bool('wait'),
        json,
      });
    case 'runs':
      return (await import('./runs-command')).runsCommand(ctx, {
        ...{ status: str('status'), capability: str('capability'), since: str('since'), until: str('until') },
        ...{ limit: str('limit'), cursor: str('cursor'), all: bool('all'), json },
      });
    case 'events':
      return (await import('./events-command')).eventsCommand(ctx, runId, {
        follow: bool('follow') || bool('wait'),
        wait: bool('wait'),
        json,
      });
    case 'cancel':
      return (await import('./cancel-command')).cancelCommand(ctx, runId, { reason: str('reason'), json });
    case 'pause':
      return (await import('./run-control-command')).pauseCommand(ctx, runId, {
        reason: str('reason'),
        json,
      });
    case 'resume':
      return (await import('./run-control-command')).resumeCommand(ctx, runId, {
        planVersion: str('plan-version'),
        wait: bool('wait'),
        json,
      });
    case 'hitl list':
      return (await import('./hitl-command')).hitlListCommand(ctx, args.runId, json);
    case 'hitl approve':
    case 'hitl reject': {
      const decision = command.name === 'hitl approve' ? 'approve' : 'reject';
      const options = { requestId: str('request'), note: str('note'), payloadFile: str('payload'), json };
      return (await import('./hitl-command')).hitlResolveCommand(ctx, decision, runId, options);
    }
    case 'replay':
      if (!runId) throw new UsageError('replay needs a runId, or --verify --file <export.ndjson>');
      return (await import('./events-command')).replayCommand(ctx, runId, { verify: bool('verify'), json });
    case 'export':
      return (await import('./audit-command')).exportCommand(ctx, runId, { out: str('out'), json });
    case 'verify':
      return (await import('./audit-command')).verifyCommand(ctx, runId, {
        against: str('against'),
        json,
        key: process.env.FLEX_CHAIN_SIGNING_KEY,
      });
    case 'policy what-if':
      return (await import('./policy-what-if')).policyWhatIfCommand(ctx, {
        ...{ policies: str('policies'), since: str('since'), runs: str('runs'), limit: str('limit') },
        ...{ merge: bool('merge'), json },
      });
    case 'projections rebuild':
      process.stdout.write(
        `${JSON.stringify(await (await api(ctx, 'POST', 'admin/projections/rebuild', {})).json())}\n`,
      );
      return EXIT.ok;
    default:
      throw new UsageError(`unknown command ${command.name}`);
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
