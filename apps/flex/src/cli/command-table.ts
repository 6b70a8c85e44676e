/** One option of a command: a boolean flag, or a flag with a value (`--note text`). */
export interface OptionSpec {
  type: 'boolean' | 'string';
  /** For a value: how usage names it (`--note <text>`). */
  value?: string;
  help: string;
}

/** One command as `flex` accepts it: its words, positional arguments and options. */
export interface CommandSpec {
  /** The command's words: `run`, `hitl approve`, `projections rebuild`. */
  name: string;
  /** Positional arguments in order; a trailing `?` marks an optional one. */
  args: readonly string[];
  options: Readonly<Record<string, OptionSpec>>;
  summary: string;
}

const json: OptionSpec = {
  type: 'boolean',
  help: 'machine-readable output: one JSON document (NDJSON for streams)',
};
const wait: OptionSpec = {
  type: 'boolean',
  help: 'keep following while the run waits for a human or is paused',
};
const note: OptionSpec = { type: 'string', value: 'text', help: "the operator's note" };
const payload: OptionSpec = {
  type: 'string',
  value: 'file.json',
  help: "a JSON payload (a node's output when asked)",
};
const request: OptionSpec = {
  type: 'string',
  value: 'requestId',
  help: 'which pending request (default: the oldest)',
};

/** Every command `flex` knows. Options common to all (`--json`, `--help`) are added by the parser. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'run',
    args: ['envelope.json'],
    options: { wait },
    summary: 'start a run and show its progress until it ends, pauses or waits for a human',
  },
  {
    name: 'runs',
    args: [],
    options: {
      status: { type: 'string', value: 'status[,status]', help: 'only runs in these statuses' },
      capability: { type: 'string', value: 'id', help: 'only runs whose plan uses this capability' },
      since: { type: 'string', value: 'iso-time', help: 'created at or after' },
      until: { type: 'string', value: 'iso-time', help: 'created before' },
      limit: { type: 'string', value: 'n', help: 'runs per page (1-500, default 50)' },
      cursor: { type: 'string', value: 'cursor', help: 'the page after this cursor (printed as next)' },
      all: { type: 'boolean', help: 'every page, not just the first' },
    },
    summary: 'list runs, newest first',
  },
  {
    name: 'events',
    args: ['runId'],
    options: {
      follow: { type: 'boolean', help: 'keep streaming until the run ends (reconnecting as needed)' },
      wait,
    },
    summary: "print a run's events; --follow streams them live",
  },
  {
    name: 'cancel',
    args: ['runId'],
    options: { reason: { type: 'string', value: 'text', help: 'why (recorded in run_cancelled)' } },
    summary: 'cancel a run that has not ended',
  },
  {
    name: 'pause',
    args: ['runId'],
    options: { reason: { type: 'string', value: 'text', help: 'why (recorded in run_paused)' } },
    summary: 'pause a running run (or one waiting for a human) until flex resume',
  },
  {
    name: 'resume',
    args: ['runId'],
    options: {
      'plan-version': {
        type: 'string',
        value: 'n',
        help: 'the plan version you saw (default: the run’s current one)',
      },
      wait,
    },
    summary: 'resume a paused run and show its progress until it ends, pauses or waits for a human',
  },
  {
    name: 'hitl list',
    args: ['runId?'],
    options: {},
    summary: 'pending human requests (of one run, or all)',
  },
  {
    name: 'hitl approve',
    args: ['runId'],
    options: { request, note, payload },
    summary: 'approve a request',
  },
  { name: 'hitl reject', args: ['runId'], options: { request, note, payload }, summary: 'reject a request' },
  {
    name: 'replay',
    args: ['runId?'],
    options: {
      verify: {
        type: 'boolean',
        help: 'check the audit invariants and re-decide every recorded decision (docs/AUDIT.md)',
      },
      file: {
        type: 'string',
        value: 'export.ndjson',
        help: 'with --verify: re-decide an exported run offline (no server, no token)',
      },
    },
    summary: "print a run's recorded events; --verify decides them again",
  },
  {
    name: 'export',
    args: ['runId'],
    options: { out: { type: 'string', value: 'file', help: 'write the export here (default: stdout)' } },
    summary: "a run's events with their chain links and chain head, as NDJSON (operator)",
  },
  {
    name: 'verify',
    args: ['runId'],
    options: {
      against: {
        type: 'string',
        value: 'export.ndjson',
        help: 'an earlier export of the run: the stored chain must still reach its head',
      },
    },
    summary: "check that a run's stored events are the ones written: name the first bad one (operator)",
  },
  {
    name: 'verify-export',
    args: ['file'],
    options: {},
    summary: 'check an export offline (and its head signature with FLEX_CHAIN_SIGNING_KEY)',
  },
  {
    name: 'policy what-if',
    args: [],
    options: {
      policies: {
        type: 'string',
        value: 'file.json',
        help: 'the candidate runtime policies { "runtime": [...] } (required)',
      },
      since: { type: 'string', value: 'iso-time', help: 'runs created at or after' },
      runs: { type: 'string', value: 'id[,id]', help: 'these runs (default: the newest finished runs)' },
      limit: { type: 'string', value: 'n', help: 'at most this many runs (1-100, default 20)' },
      merge: {
        type: 'boolean',
        help: "keep each run's other policies; the candidates replace those with their ids (default: all)",
      },
    },
    summary:
      'which recorded decisions candidate runtime policies would change, per run and in total (operator)',
  },
  { name: 'projections rebuild', args: [], options: {}, summary: 'rebuild the read models (admin)' },
  { name: 'help', args: ['command?'], options: {}, summary: 'this help, or one command’s' },
];

/** Options every command takes. */
export const COMMON_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  json,
  help: { type: 'boolean', help: 'show usage' },
};
