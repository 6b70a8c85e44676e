import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { connect, StorageType, type ConnectionOptions } from 'nats';
import { freePort } from './free-port';

export interface NatsTestServer {
  /** e.g. `nats://127.0.0.1:41234`. */
  url: string;
  /** Kills the server, then removes its store dir. Safe to call twice. */
  stop(): Promise<void>;
  /** The last few KB the server logged, for failure messages. */
  log(): string;
  /** Every error line the server logged (permission and authorization violations among them). */
  errors(): string[];
  /** Kills the server (SIGKILL: a crash, nothing flushed); `revive` starts it again. */
  crash(): Promise<void>;
  /** Starts a crashed server again on the same port with the same JetStream store; resolves once it takes requests. */
  revive(): Promise<void>;
  /** `crash`, `downMs` down, `revive`. */
  restart(downMs?: number): Promise<void>;
}

export interface NatsTestServerOptions {
  /** A nats-server configuration (accounts, users, permissions, TLS); the port and store stay ours. */
  config?: string;
  /** The server process's environment beyond ours: what the configuration's `$NAME`s resolve to. */
  env?: Record<string, string>;
  /** How the readiness probe connects when the configuration demands credentials or TLS. */
  probe?: Partial<ConnectionOptions>;
}

const EXTRA_DIRS = ['/usr/sbin', '/usr/local/bin', '/usr/bin'];
const READY_TIMEOUT_MS = 20_000;

/**
 * Starts a throwaway nats-server with JetStream on a free local port and a temp store dir, with
 * `options.config` when given (as shipped deployments run it). Installs it with apt when it is
 * missing and we are root; otherwise fails saying what is missing.
 */
export async function startNats(options: NatsTestServerOptions = {}): Promise<NatsTestServer> {
  const binary = findNatsServer() ?? installNatsServer();
  const storeDir = await mkdtemp(join(tmpdir(), 'flex-nats-'));
  const port = await freePort();
  const args = ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)];
  if (options.config !== undefined) {
    const file = join(storeDir, 'nats-server.conf');
    await writeFile(file, options.config, { mode: 0o600 });
    args.push('-c', file);
  }
  const spawnServer = () =>
    spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...options.env } });
  const { log, errors, attach } = logCapture();
  let child = spawnServer();
  attach(child);
  const url = `nats://127.0.0.1:${port}`;
  const probe = options.probe ?? {};
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= kill(child).then(() => rm(storeDir, { recursive: true, force: true })));
  const crash = () => kill(child, 'SIGKILL');
  const revive = async (): Promise<void> => {
    child = spawnServer();
    attach(child);
    await waitUntilReady(url, child, log, probe);
  };
  const restart = async (downMs = 0): Promise<void> => {
    await crash();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await revive();
  };
  try {
    await waitUntilReady(url, child, log, probe);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, stop, log, errors, crash, revive, restart };
}

/**
 * Starts `size` throwaway nats-servers joined into one JetStream cluster over local routes (as the
 * k8s StatefulSet runs them), resolving once every one answers JetStream requests and the cluster can
 * place `size` replicas of a stream. `stop` kills them all.
 */
export async function startNatsCluster(
  size: number,
): Promise<{ servers: NatsTestServer[]; stop(): Promise<void> }> {
  const routePorts = await Promise.all(Array.from({ length: size }, () => freePort()));
  const name = `flex-test-${process.pid}-${routePorts[0]}`;
  const config = (i: number) =>
    [
      `server_name: ${name}-${i}`,
      'cluster {',
      `  name: ${name}`,
      `  listen: 127.0.0.1:${routePorts[i]}`,
      `  routes: [${routePorts
        .filter((_, j) => j !== i)
        .map((p) => `nats-route://127.0.0.1:${p}`)
        .join(', ')}]`,
      '}',
    ].join('\n');
  const started = await Promise.allSettled(routePorts.map((_, i) => startNats({ config: config(i) })));
  const servers = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const stop = async () => void (await Promise.all(servers.map((s) => s.stop())));
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  try {
    await waitUntilPlaceable(servers[0].url, size, name);
  } catch (error) {
    await stop();
    throw error;
  }
  return { servers, stop };
}

/**
 * Every server answering JetStream is not yet a cluster that can place `size` copies: the meta group
 * may have elected its leader before the last peer joined it, and a stream of `size` replicas is then
 * refused with "no suitable peers for placement" (seen in CI). Resolves once a probe stream of `size`
 * replicas (in memory) can be created; it is deleted again.
 */
async function waitUntilPlaceable(url: string, size: number, name: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const probe = `PROBE_${name.replace(/[^A-Za-z0-9]/g, '_')}`;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const nc = await connect({ servers: url, timeout: 1000 });
    try {
      const jsm = await nc.jetstreamManager({ timeout: 5000 });
      await jsm.streams.add({
        name: probe,
        subjects: [`${probe}.probe`],
        num_replicas: size,
        storage: StorageType.Memory,
      });
      await jsm.streams.delete(probe);
      return;
    } catch (error) {
      lastError = error;
    } finally {
      await nc.close();
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `the NATS cluster of ${size} could not place ${size} replicas in ${READY_TIMEOUT_MS}ms: ${String(lastError)}`,
  );
}

function findNatsServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...EXTRA_DIRS];
  for (const dir of dirs) {
    const candidate = join(dir, 'nats-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function installNatsServer(): string {
  if (process.getuid?.() !== 0) {
    throw new Error(
      'nats-server is not installed (looked on PATH, /usr/sbin, /usr/local/bin) and this user cannot install it: ' +
        'install it (e.g. `apt-get install nats-server`) or set FLEX_TEST_NATS_URL to a running server with JetStream',
    );
  }
  const result = spawnSync('sh', ['-c', 'apt-get update && apt-get install -y nats-server'], {
    stdio: 'inherit',
  });
  const found = findNatsServer();
  if (result.status !== 0 || !found) {
    throw new Error(
      `installing nats-server with apt-get failed (exit ${result.status}); set FLEX_TEST_NATS_URL instead`,
    );
  }
  return found;
}

/**
 * Keeps the last few KB of the server's stderr so a failed start can say why, and every error line
 * (up to 10,000), across restarts: each process started is `attach`ed.
 */
function logCapture(): { log: () => string; errors: () => string[]; attach: (child: ChildProcess) => void } {
  let tail = '';
  const errors: string[] = [];
  const attach = (child: ChildProcess) => {
    let partial = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4000);
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.includes('[ERR]') && errors.length < 10_000) errors.push(line);
    });
  };
  return { log: () => tail, errors: () => [...errors], attach };
}

async function waitUntilReady(
  url: string,
  child: ChildProcess,
  log: () => string,
  probe: Partial<ConnectionOptions>,
): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`nats-server exited with ${child.exitCode}: ${reasons(log())}\n${log()}`);
    try {
      const nc = await connect({ ...probe, servers: url, timeout: 1000, reconnect: false });
      try {
        await (await nc.jetstreamManager({ timeout: 1000 })).getAccountInfo();
        return;
      } finally {
        await nc.close();
      }
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(
    `nats-server at ${url} did not accept JetStream requests in ${READY_TIMEOUT_MS}ms: ${String(lastError)}\n${log()}`,
  );
}

/** The log's fatal and error lines, which say why a server exited, ahead of the whole tail. */
function reasons(log: string): string {
  return log
    .split('\n')
    .filter((line) => /\[(FTL|ERR)\]/.test(line))
    .join('\n');
}

async function kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
