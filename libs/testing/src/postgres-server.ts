import { execFile, ExecFileOptions, spawn } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, chown, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './free-port';

const run = promisify(execFile);
const BINARIES = ['initdb', 'postgres', 'pg_ctl'] as const;
const SERVICE_USER = 'postgres';

export interface PostgresServer {
  /** Superuser URL with trust auth, e.g. `postgres://postgres@127.0.0.1:54321/postgres`. */
  url: string;
  /** Fast shutdown, then the data directory is removed. Safe to call twice. */
  stop(): Promise<void>;
  /** Stops the server as a crash would (`pg_ctl -m immediate`: no checkpoint, every connection cut). */
  crash(): Promise<void>;
  /** Starts a crashed server again on the same port and data directory; resolves once it takes connections. */
  revive(): Promise<void>;
}

export interface PostgresServerOptions {
  /**
   * Keep every commit acknowledged to a client through a crash of the server process
   * (`synchronous_commit=on`; fsync stays off: the machine is not the one crashing). Off by default:
   * a server killed then loses the last few hundred milliseconds of commits, which only a test that
   * crashes the server can tell.
   */
  crashSafeCommits?: boolean;
}

/**
 * Starts a throwaway Postgres for one test run: a fresh cluster in a temp dir, trust auth, on
 * 127.0.0.1 at a free port, with durability turned off (tests never need it, unless they crash the
 * server: see `crashSafeCommits`). It never touches a server that already runs on the machine.
 */
export async function startPostgres(settings: PostgresServerOptions = {}): Promise<PostgresServer> {
  const bin = await findOrInstallBinaries();
  const dir = await mkdtemp(join(tmpdir(), 'flex-pg-'));
  const asRoot = process.getuid?.() === 0;
  const data = join(dir, 'data');
  let reaper: { kill(): void } | undefined;
  try {
    if (asRoot) await chownTree(dir);
    await exec(asRoot, join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    const port = await freePort();
    const options = [
      `-c listen_addresses=127.0.0.1 -p ${port}`,
      `-c unix_socket_directories=${dir}`,
      `-c fsync=off -c synchronous_commit=${settings.crashSafeCommits ? 'on' : 'off'} -c full_page_writes=off`,
      '-c max_connections=200',
    ].join(' ');
    const log = join(dir, 'server.log');
    const pgCtl = (args: string[]) => exec(asRoot, join(bin, 'pg_ctl'), ['-D', data, ...args]);
    const startServer = () =>
      pgCtl(['-l', log, '-o', options, '-w', '-t', '60', 'start']).catch(async (error: unknown) => {
        throw new Error(
          `postgres did not start: ${String(error)}\n${await readFile(log, 'utf8').catch(() => '')}`,
        );
      });
    await startServer();
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    reaper = startReaper(asRoot, bin, data, dir);
    await waitForConnection(url);
    const started = reaper;
    return {
      url,
      crash: () => pgCtl(['-m', 'immediate', '-w', '-t', '60', 'stop']),
      revive: async () => {
        await startServer();
        await waitForConnection(url);
      },
      stop: once(async () => {
        started.kill();
        await stopServer(asRoot, bin, data, dir);
      }),
    };
  } catch (error) {
    reaper?.kill();
    await stopServer(asRoot, bin, data, dir).catch(() => undefined);
    throw error;
  }
}

async function stopServer(asRoot: boolean, bin: string, data: string, dir: string): Promise<void> {
  try {
    await exec(asRoot, join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A detached watcher that stops the server and removes its dir once this process is gone, so a
 * test run that is killed (and never reaches globalTeardown) leaves no server behind.
 */
function startReaper(asRoot: boolean, bin: string, data: string, dir: string): { kill(): void } {
  const runAs = asRoot ? `runuser -u ${SERVICE_USER} -- ` : '';
  const script = [
    'while kill -0 "$1" 2>/dev/null; do sleep 1; done',
    `${runAs}"$2" -D "$3" -m immediate -w stop >/dev/null 2>&1`,
    'rm -rf "$4"',
  ].join('\n');
  const child = spawn(
    'sh',
    ['-c', script, 'flex-pg-reaper', String(process.pid), join(bin, 'pg_ctl'), data, dir],
    {
      detached: true,
      stdio: 'ignore',
    },
  );
  child.unref();
  return { kill: () => void child.kill() };
}

async function findOrInstallBinaries(): Promise<string> {
  const found = await findBinaries();
  if (found) return found;
  if (process.getuid?.() === 0) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    await run('apt-get', ['update'], { env, maxBuffer: 64 << 20 });
    await run('apt-get', ['install', '-y', 'postgresql'], { env, maxBuffer: 64 << 20 });
    const installed = await findBinaries();
    if (installed) return installed;
  }
  throw new Error(
    `Postgres server binaries not found: need ${BINARIES.join(', ')} in one directory on PATH or under ` +
      `/usr/lib/postgresql/*/bin (install the Debian package "postgresql"), or set FLEX_TEST_DATABASE_URL ` +
      `to a running server.`,
  );
}

/** The first directory holding all three binaries: PATH first, then Debian's versioned dirs, newest first. */
async function findBinaries(): Promise<string | undefined> {
  const fromPath = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  const versions = await readdir('/usr/lib/postgresql').catch(() => [] as string[]);
  const debian = versions
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join('/usr/lib/postgresql', version, 'bin'));
  for (const dir of [...fromPath, ...debian]) {
    const present = await Promise.all(BINARIES.map((name) => isExecutable(join(dir, name))));
    if (present.every(Boolean)) return dir;
  }
  return undefined;
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, fsConstants.X_OK).then(
    () => true,
    () => false,
  );
}

/** initdb and postgres refuse to run as root: run them as the service user, who must own the dir. */
async function exec(asRoot: boolean, file: string, args: string[]): Promise<void> {
  const options: ExecFileOptions = { maxBuffer: 16 << 20, cwd: tmpdir() };
  if (asRoot) await run('runuser', ['-u', SERVICE_USER, '--', file, ...args], options);
  else await run(file, args, options);
}

async function chownTree(dir: string): Promise<void> {
  const { stdout } = await run('id', ['-u', SERVICE_USER]).catch(() => {
    throw new Error(`running as root, but there is no "${SERVICE_USER}" user to run postgres as`);
  });
  const { stdout: gid } = await run('id', ['-g', SERVICE_USER]);
  await chown(dir, Number(stdout.trim()), Number(gid.trim()));
}

async function waitForConnection(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`postgres at ${url} did not accept connections: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
