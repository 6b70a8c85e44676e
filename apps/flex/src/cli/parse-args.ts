import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './client';
import { COMMANDS, COMMON_OPTIONS, type CommandSpec } from './command-table';
import { EXIT } from './exit-codes';
import { commandUsage, usage } from './usage';

/** A command line `flex` understood: the command, its positional arguments by name, its options. */
export interface ParsedCommand {
  command: CommandSpec;
  args: Record<string, string | undefined>;
  flags: Record<string, string | boolean | undefined>;
  json: boolean;
  help: boolean;
}

/** A command line `flex` does not understand: exit 2, with the usage that applies. */
export class UsageError extends CliError {
  constructor(problem: string, spec?: CommandSpec) {
    super(`${problem}\n${spec ? `usage:\n${commandUsage(spec)}` : usage()}`, EXIT.usage);
  }
}

const GROUPS = new Set(COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]));

/**
 * Parse `flex`'s argv strictly: an unknown command, subcommand or flag, a flag without its value,
 * or too many or too few arguments is a UsageError. `flex hitl <runId> approve|reject` (the older
 * order) is read as `flex hitl approve|reject <runId>`.
 */
export function parseArgv(argv: readonly string[]): ParsedCommand {
  const words = legacyOrder(argv);
  if (words.length === 0) throw new UsageError('missing command');
  if (words[0] === '--help' || words[0] === '-h') return parseArgv(['help', ...words.slice(1)]);
  const { spec, rest } = findCommand(words);
  const { values, positionals } = strictParse(spec, rest);
  const help = values.help === true;
  const required = spec.args.filter((a) => !a.endsWith('?')).length;
  if (!help && positionals.length < required)
    throw new UsageError(`missing ${spec.args[positionals.length]}`, spec);
  if (positionals.length > spec.args.length)
    throw new UsageError(`unexpected argument ${positionals[spec.args.length]}`, spec);
  const args = Object.fromEntries(spec.args.map((a, i) => [a.replace(/\?$/, ''), positionals[i]]));
  const { json, help: _help, ...flags } = values;
  return { command: spec, args, flags: flags as ParsedCommand['flags'], json: json === true, help };
}

function legacyOrder(argv: readonly string[]): string[] {
  const [group, runId, decision, ...rest] = argv;
  if (
    group === 'hitl' &&
    (decision === 'approve' || decision === 'reject') &&
    runId &&
    !runId.startsWith('-')
  )
    if (!['list', 'approve', 'reject'].includes(runId)) return [group, decision, runId, ...rest];
  return [...argv];
}

function findCommand(words: string[]): { spec: CommandSpec; rest: string[] } {
  const [first, second] = words;
  if (GROUPS.has(first)) {
    const spec = COMMANDS.find((c) => c.name === `${first} ${second}`);
    if (spec) return { spec, rest: words.slice(2) };
    const group = COMMANDS.filter((c) => c.name.startsWith(`${first} `));
    const what = second === undefined ? 'missing subcommand' : `unknown subcommand ${first} ${second}`;
    throw new CliError(`${what}\nusage:\n${group.map(commandUsage).join('\n')}`, EXIT.usage);
  }
  const spec = COMMANDS.find((c) => c.name === first);
  if (!spec) throw new UsageError(`unknown command ${first}`);
  return { spec, rest: words.slice(1) };
}

function strictParse(spec: CommandSpec, rest: string[]) {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, o] of Object.entries({ ...spec.options, ...COMMON_OPTIONS }))
    options[name] = name === 'help' ? { type: o.type, short: 'h' } : { type: o.type };
  try {
    return parseArgs({ args: rest, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0], spec);
  }
}
