import { cancelCommand } from './cancel-command';
import { cliContext, CliError } from './client';
import { hitlCommand, rebuildCommand, replayCommand, runCommand, runsCommand } from './commands';

const USAGE = `usage:
  flex run <envelope.json>          start a run and stream its progress
  flex runs                         list recent runs
  flex replay <runId> [--verify]    print a run's events; --verify checks the audit invariants
  flex hitl <runId> approve|reject [--note text] [--payload file.json]
                                    resolve the run's pending human request
  flex cancel <runId> [--reason text] [--json]
                                    cancel a run that has not ended (exit 4: it already had)
  flex projections rebuild          rebuild the read models from the event store (admin)
env: FLEX_URL (default http://127.0.0.1:3000), FLEX_TOKEN (default: .flex/api-token)`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 1;
  }
  const ctx = cliContext();
  switch (command) {
    case 'run':
      if (!args[0]) throw new CliError(USAGE);
      return runCommand(ctx, args[0]);
    case 'runs':
      return runsCommand(ctx);
    case 'replay':
      if (!args[0]) throw new CliError(USAGE);
      return replayCommand(ctx, args[0], args.includes('--verify'));
    case 'hitl':
      if (!args[0] || !args[1]) throw new CliError(USAGE);
      return hitlCommand(ctx, args[0], args[1], {
        note: flag(args, '--note'),
        payloadFile: flag(args, '--payload'),
      });
    case 'cancel':
      if (!args[0] || args[0].startsWith('--')) throw new CliError(USAGE);
      return cancelCommand(ctx, args[0], { reason: flag(args, '--reason'), json: args.includes('--json') });
    case 'projections':
      if (args[0] !== 'rebuild') throw new CliError(USAGE);
      return rebuildCommand(ctx);
    default:
      throw new CliError(`unknown command ${command}\n${USAGE}`);
  }
}

function flag(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  if (!args[at + 1]) throw new CliError(`${name} needs a value`);
  return args[at + 1];
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`flex: ${error instanceof CliError ? error.message : (error as Error).stack}\n`);
      process.exit(error instanceof CliError ? error.exitCode : 1);
    },
  );
}
