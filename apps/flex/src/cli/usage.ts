import { COMMANDS, COMMON_OPTIONS, type CommandSpec } from './command-table';
import { EXIT_CODE_HELP } from './exit-codes';

/** `flex run <envelope.json> [--wait] [--json]` */
export function commandLine(spec: CommandSpec): string {
  const args = spec.args.map((a) => (a.endsWith('?') ? `[${a.slice(0, -1)}]` : `<${a}>`));
  const options = Object.entries(spec.options).map(([name, o]) =>
    o.type === 'string' ? `[--${name} <${o.value}>]` : `[--${name}]`,
  );
  return ['flex', spec.name, ...args, ...options, '[--json]'].join(' ');
}

/** One command's usage: its line, what it does, and each option. */
export function commandUsage(spec: CommandSpec): string {
  const options = Object.entries({ ...spec.options, json: COMMON_OPTIONS.json }).map(
    ([name, o]) => `      --${(o.type === 'string' ? `${name} <${o.value}>` : name).padEnd(26)} ${o.help}`,
  );
  return [`  ${commandLine(spec)}`, `      ${spec.summary}`, ...options].join('\n');
}

/** `flex --help`: every command, the environment, the exit codes. */
export function usage(): string {
  return [
    'usage: flex <command> [arguments] [options]',
    '',
    ...COMMANDS.filter((c) => c.name !== 'help').map((c) => `  ${commandLine(c)}\n      ${c.summary}`),
    '  flex help [command]   (or flex <command> --help)',
    '',
    'env: FLEX_URL (default http://127.0.0.1:3000),',
    '     FLEX_TOKEN (default: the token in $FLEX_DATA_DIR/api-token),',
    '     FLEX_CHAIN_SIGNING_KEY (verify-export: checks the head signature)',
    '',
    EXIT_CODE_HELP,
  ].join('\n');
}

/** `flex help <command>`: the usage of every command it names (`hitl` names three). */
export function helpFor(name: string | undefined): string | undefined {
  if (!name) return usage();
  const specs = COMMANDS.filter((c) => c.name === name || c.name.startsWith(`${name} `));
  return specs.length ? `usage:\n${specs.map(commandUsage).join('\n')}\n\n${EXIT_CODE_HELP}` : undefined;
}
