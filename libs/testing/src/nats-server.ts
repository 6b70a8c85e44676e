import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { connect } from 'nats';

export interface NatsTestServer {
  /** e.g. `nats://127.0.0.1:41234`. */
  url: string;
  /** Kills the server, then removes its store dir. Safe to call twice. */
  stop(): Promise<void>;
}

const EXTRA_DIRS = ['/usr/sbin', '/usr/local/bin', '/usr/bin'];
const READY_TIMEOUT_MS = 20_000;

/**
 * Starts a throwaway nats-server with JetStream on a free local port and a temp store dir.
 * Installs it with apt when it is missing and we are root; otherwise fails saying what is missing.
 */
export async function startNats(): Promise<NatsTestServer> {
  const binary = findNatsServer() ?? installNatsServer();
  const storeDir = await mkdtemp(join(tmpdir(), 'flex-nats-'));
  const port = await freePort();
  const child = spawn(binary, ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log = captureTail(child);
  const url = `nats://127.0.0.1:${port}`;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= kill(child).then(() => rm(storeDir, { recursive: true, force: true })));
  try {
    await waitUntilReady(url, child, log);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, stop };
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Keeps the last few KB of stderr so a failed start can say why. */
function captureTail(child: ChildProcess): () => string {
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  });
  return () => tail;
}

async function waitUntilReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}:\n${log()}`);
    try {
      const nc = await connect({ servers: url, timeout: 1000, reconnect: false });
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

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
