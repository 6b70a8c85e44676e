import fc from 'fast-check';
import { COMMANDS, COMMON_OPTIONS, type CommandSpec } from './command-table';
import { EXIT } from './exit-codes';
import { parseArgv, UsageError } from './parse-args';

const usageError = (argv: string[]): UsageError => {
  try {
    parseArgv(argv);
  } catch (error) {
    return error as UsageError;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
};

describe('parseArgv', () => {
  it('reads commands, subcommands, positionals and flags', () => {
    const parsed = parseArgv(['hitl', 'approve', 'r1', '--note', 'ok', '--json']);
    expect(parsed).toMatchObject({ args: { runId: 'r1' }, flags: { note: 'ok' }, json: true, help: false });
    expect(parsed.command.name).toBe('hitl approve');
    expect(parseArgv(['hitl', 'list']).args).toEqual({ runId: undefined });
    expect(parseArgv(['runs', '--status=failed,paused']).flags.status).toBe('failed,paused');
  });

  it('keeps the older order flex hitl <runId> approve|reject', () => {
    const parsed = parseArgv(['hitl', 'r1', 'reject', '--note', 'no']);
    expect(parsed.command.name).toBe('hitl reject');
    expect(parsed.args.runId).toBe('r1');
  });

  it('rejects what it does not know, with the usage, exit 2', () => {
    for (const argv of [
      [],
      ['frobnicate'],
      ['hitl'],
      ['hitl', 'foo'],
      ['projections'],
      ['run'],
      ['run', 'a.json', 'b.json'],
      ['run', 'a.json', '--json=yes'],
      ['cancel', 'r1', '--reason'],
      ['hitl', 'approve', 'r1', '--note', '--json'],
    ]) {
      const error = usageError(argv);
      expect(error.exitCode).toBe(EXIT.usage);
      expect(error.message).toMatch(/usage|flex hitl/);
    }
  });

  it('--help on any command, even without its arguments', () => {
    expect(parseArgv(['run', '--help']).help).toBe(true);
    expect(parseArgv(['--help']).command.name).toBe('help');
    expect(parseArgv(['-h', 'hitl']).args.command).toBe('hitl');
  });
});

const known = (spec: CommandSpec) => new Set([...Object.keys(spec.options), ...Object.keys(COMMON_OPTIONS)]);
const flagWord = fc.stringMatching(/^[a-z][a-z-]{0,12}$/);
const value = fc.stringMatching(/^[A-Za-z0-9_.:,]{1,12}$/);

/** A command, values for its required arguments, and some of its options with values. */
const invocation = fc.constantFrom(...COMMANDS.filter((c) => c.name !== 'help')).chain((spec) =>
  fc.record({
    spec: fc.constant(spec),
    positionals: fc.tuple(...spec.args.filter((a) => !a.endsWith('?')).map(() => value)),
    options: fc
      .subarray(Object.entries(spec.options).concat([['json', COMMON_OPTIONS.json]]))
      .chain((opts) =>
        fc.tuple(
          ...opts.map(([name, o]) =>
            o.type === 'string' ? value.map((v) => [`--${name}`, v]) : fc.constant([`--${name}`]),
          ),
        ),
      ),
  }),
);

describe('parseArgv (properties)', () => {
  it('known flags in any order, before or after the arguments, parse the same', () => {
    fc.assert(
      fc.property(invocation, fc.nat(), fc.nat(), ({ spec, positionals, options }, seed, at) => {
        const words = spec.name.split(' ');
        const canonical = parseArgv([...words, ...positionals, ...options.flat()]);
        const shuffled = [...options].sort(() => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 3) - 1);
        const cut = options.length ? at % (options.length + 1) : 0;
        const argv = [
          ...words,
          ...shuffled.slice(0, cut).flat(),
          ...positionals,
          ...shuffled.slice(cut).flat(),
        ];
        expect(parseArgv(argv)).toEqual(canonical);
      }),
    );
  });

  it('any unknown flag, anywhere, is rejected with the usage', () => {
    fc.assert(
      fc.property(invocation, flagWord, fc.nat(), ({ spec, positionals, options }, unknown, at) => {
        fc.pre(!known(spec).has(unknown) && unknown !== 'h');
        const argv = [...positionals, ...options.flat()];
        const i = at % (argv.length + 1);
        const words = [...spec.name.split(' '), ...argv.slice(0, i), `--${unknown}`, ...argv.slice(i)];
        const error = usageError(words);
        expect(error.exitCode).toBe(EXIT.usage);
        expect(error.message).toContain('usage:');
      }),
    );
  });
});
