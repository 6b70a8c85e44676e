import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@flex/runtime';
import { Client } from 'pg';
import { createTestDatabase, FlexClient, natsTestUrl, testPrefix, type TestDatabase } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { envelopeWithPolicies } from '../integration/embedded-run';

export const ROOT = join(__dirname, '../..');
const CLI = join(ROOT, 'bin/flex.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `flex …` as a subprocess (not a terminal), against `url` with `token`. */
export function flexCli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The NDJSON lines of a --json stream, each parsed (a line that is not JSON fails the test). */
export const ndjson = (text: string): any[] =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

/** Policies the CLI specs start runs with. */
export const HITL = {
  id: 'review',
  trigger: { kind: 'onStart' },
  action: { type: 'hitl', rationale: 'Check first' },
};
export const FAIL = {
  id: 'stop',
  trigger: { kind: 'onStart' },
  action: { type: 'fail', message: 'stopped early' },
};
export const PAUSE = {
  id: 'brand',
  trigger: { kind: 'onNodeComplete', selector: { kind: 'structuring' } },
  action: { type: 'pause', reason: 'brand check' },
};

/** An embedded Flex (reference agents in-process) and the CLI pointed at it. */
export interface CliFlex {
  flex: EmbeddedFlex;
  /** `FLEX_URL` and `FLEX_TOKEN` for `token` (default: the operator's). */
  env(token?: string): Record<string, string>;
  /** `flex …` as the operator. */
  cli(...args: string[]): Promise<CliResult>;
  /** The sample envelope with `runtime` policies, written to a file named `name`. */
  envelopeFile(name: string, runtime: unknown[]): string;
  /** The run's status, as GET runs/:id says. */
  status(runId: string): Promise<string>;
  close(): Promise<void>;
}

/** Tokens: `cli-operator` (operator) and `cli-client` (client). */
export async function startCliFlex(): Promise<CliFlex> {
  const dir = mkdtempSync(join(tmpdir(), 'flex-cli-'));
  const flex = await startEmbedded({
    config: loadConfig({
      FLEX_API_TOKENS: 'cli-operator:operator,cli-client:client',
      FLEX_LOG_LEVEL: 'silent',
      PORT: '0',
    }),
    dataDir: null,
    agents: true,
  });
  const env = (token = 'cli-operator') => ({ FLEX_URL: flex.url, FLEX_TOKEN: token });
  const operator = new FlexClient(flex.url, 'cli-operator');
  return {
    flex,
    env,
    cli: (...args) => flexCli(env(), ...args),
    envelopeFile: (name, runtime) => {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(envelopeWithPolicies(runtime)));
      return file;
    },
    status: async (runId) => (await operator.json('GET', `/api/v1/flex/runs/${runId}`)).body.run.status,
    close: () => flex.close(),
  };
}

/** The run id `flex run` prints first on stderr (`run <id>`). */
export const runIdOf = (stderr: string): string => /^run (\S+)/m.exec(stderr)?.[1] as string;

/** An embedded Flex on a real Postgres (its own test database) and NATS, and a client of that database. */
export async function startPostgresFlex(
  name: string,
  env: Record<string, string>,
): Promise<{ db: TestDatabase; flex: EmbeddedFlex; pg: Client }> {
  const db = await createTestDatabase(name);
  const config = loadConfig({
    FLEX_LOG_LEVEL: 'silent',
    PORT: '0',
    FLEX_DATABASE_URL: db.url,
    FLEX_NATS_URL: natsTestUrl(),
    FLEX_NATS_PREFIX: testPrefix(name),
    ...env,
  });
  const flex = await startEmbedded({ config, dataDir: null, agents: true });
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  return { db, flex, pg };
}
