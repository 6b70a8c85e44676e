import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlexClient, freePort, waitFor } from '@flex/testing';
import { expectSampleRunCompleted, sampleEnvelope } from './sample-run';

const ROOT = join(__dirname, '..');
const START = join(ROOT, 'bin/start.js');
const MAIN = join(ROOT, 'apps/flex/dist/embedded/main.js');
const TOKEN = 'start-client-token';
const READY = /^Flex is ready \(embedded mode\) at (http:\/\/\S+)$/m;

/** A start as a user runs it: its output kept whole, its exit awaited. */
interface Start {
  child: ChildProcess;
  out: string;
  err: string;
  exited: Promise<number | null>;
}

function start(script: string, env: Record<string, string>): Start {
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: { ...process.env, FLEX_API_TOKENS: `${TOKEN}:client`, FLEX_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const s: Start = { child, out: '', err: '', exited: new Promise((resolve) => child.once('exit', resolve)) };
  child.stdout?.on('data', (chunk: Buffer) => (s.out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (s.err += chunk.toString()));
  return s;
}

const ready = (s: Start) => READY.exec(s.out)?.[1];
const gone = (s: Start) => s.child.exitCode !== null || s.child.signalCode !== null;

async function stop(...starts: Start[]): Promise<void> {
  for (const s of starts) {
    if (!gone(s)) s.child.kill('SIGTERM');
    await s.exited;
  }
}

/** Each start ends up ready or gone; returns them as [ready, refused], failing if that is not one of each. */
async function oneReadyOneRefused(a: Start, b: Start, timeoutMs: number): Promise<[Start, Start]> {
  await waitFor(
    async () => (ready(a) || gone(a)) && (ready(b) || gone(b)),
    timeoutMs,
    () => `a: ${a.out}${a.err}\nb: ${b.out}${b.err}`,
  );
  const winners = [a, b].filter((s) => ready(s));
  expect(winners).toHaveLength(1);
  const winner = winners[0];
  const loser = winner === a ? b : a;
  expect(await loser.exited).toBe(1);
  return [winner, loser];
}

function expectOneLineRefusal(refused: Start, winner: Start, dataDir: string): void {
  expect(refused.out).toBe('');
  const lines = refused.err.trimEnd().split('\n');
  expect(lines.at(-1)).toBe(
    `flex: another Flex process (pid ${winner.child.pid}) is using ${dataDir}; stop it first or set FLEX_DATA_DIR to another directory`,
  );
  expect(refused.err).not.toMatch(/^\s+at /m);
}

/** A non-loopback IPv4 address of this machine, if it has one. */
function outsideAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}

/** `npm start` (bin/start.js) and the process it starts, as people meet them. */
describe('starting Flex like a product', () => {
  const dirs: string[] = [];
  const tmp = (label: string) => {
    const dir = mkdtempSync(join(tmpdir(), `flex-${label}-`));
    dirs.push(dir);
    return dir;
  };

  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('two starts at the same moment on one data directory: one serves, the other refuses in one line', async () => {
    const dataDir = tmp('race');
    const env = (port: number) => ({ PORT: String(port), FLEX_DATA_DIR: dataDir });
    const [a, b] = [start(MAIN, env(await freePort())), start(MAIN, env(await freePort()))];
    try {
      const [winner, loser] = await oneReadyOneRefused(a, b, 90_000);
      expectOneLineRefusal(loser, winner, dataDir);
      expect(loser.err.trimEnd().split('\n')).toHaveLength(1);
    } finally {
      await stop(a, b);
    }
  }, 120_000);

  it.each([
    [
      { FLEX_API_TOKENS: 'short:client' },
      'flex: invalid configuration: FLEX_API_TOKENS: tokens must be at least 8 characters',
    ],
    [{ PORT: 'eighty' }, /^flex: invalid configuration: PORT: /],
    [
      { FLEX_HOST: 'http://0.0.0.0' },
      /^flex: invalid configuration: FLEX_HOST: expected an IP address or a host name/,
    ],
  ])(
    'a setting it cannot start with (%j) is one line on stderr and exit 1',
    async (env, line) => {
      const s = start(MAIN, { FLEX_DATA_DIR: tmp('config'), ...env });
      expect(await s.exited).toBe(1);
      expect(s.out).toBe('');
      expect(s.err.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
    },
    60_000,
  );

  it('prints the URL and token only once ready: a run started at that moment completes', async () => {
    const s = start(MAIN, { PORT: String(await freePort()), FLEX_DATA_DIR: tmp('ready') });
    try {
      const url = await waitFor(
        async () => ready(s) || (gone(s) && 'gone'),
        90_000,
        () => s.out + s.err,
      );
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const result = await new FlexClient(url, TOKEN).runStream(sampleEnvelope());
      expect(result.status).toBe(200);
      expectSampleRunCompleted(result.frames);
      const readyz = await fetch(`${url}/readyz`);
      expect(readyz.status).toBe(200);
      expect(await readyz.json()).toMatchObject({
        status: 'ready',
        checks: { agents: { ok: true }, projections: { ok: true }, migrations: { ok: true } },
      });
    } finally {
      await stop(s);
    }
  }, 120_000);

  it('binds loopback by default; FLEX_HOST=0.0.0.0 serves every interface', async () => {
    const outside = outsideAddress();
    const port = await freePort();
    const local = start(MAIN, { PORT: String(port), FLEX_DATA_DIR: tmp('host') });
    try {
      await waitFor(
        async () => ready(local) || gone(local),
        90_000,
        () => local.out + local.err,
      );
      expect(ready(local)).toBe(`http://127.0.0.1:${port}`);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      if (outside) await expect(fetch(`http://${outside}:${port}/healthz`)).rejects.toThrow();
    } finally {
      await stop(local);
    }
    const everywhere = start(MAIN, { PORT: String(port), FLEX_DATA_DIR: tmp('host'), FLEX_HOST: '0.0.0.0' });
    try {
      await waitFor(
        async () => ready(everywhere) || gone(everywhere),
        90_000,
        () => everywhere.out + everywhere.err,
      );
      expect(ready(everywhere)).toBe(`http://127.0.0.1:${port}`);
      if (outside) expect((await fetch(`http://${outside}:${port}/healthz`)).status).toBe(200);
    } finally {
      await stop(everywhere);
    }
  }, 200_000);

  it('npm start builds once: two starts with no build stamp take turns on one build, later starts build nothing', async () => {
    const cache = tmp('build-cache');
    const dataDir = tmp('build-data');
    // A build that takes a while and counts itself, leaving dist/ alone: other specs run from it
    // meanwhile (the test command has built it; a real rebuild here made their CLI vanish).
    const builds = join(cache, 'builds');
    const env = async () => ({
      PORT: String(await freePort()),
      FLEX_DATA_DIR: dataDir,
      FLEX_BUILD_CACHE_DIR: cache,
      FLEX_BUILD_COMMAND: `node -e "require('fs').appendFileSync(process.argv[1], 'built\\n'); setTimeout(() => {}, 1500)" ${JSON.stringify(builds)}`,
    });
    const [a, b] = [start(START, await env()), start(START, await env())];
    try {
      const [winner, loser] = await oneReadyOneRefused(a, b, 400_000);
      const said = (s: Start) => s.err.split('\n').filter((l) => l.startsWith('flex: '));
      const lines = [...said(winner), ...said(loser)];
      expect(lines.filter((l) => l.startsWith('flex: building'))).toHaveLength(1);
      expect(lines.filter((l) => l.startsWith('flex: another start is building'))).toHaveLength(1);
      expect(readFileSync(builds, 'utf8')).toBe('built\n');
      expectOneLineRefusal(loser, winner, dataDir);
    } finally {
      await stop(a, b);
    }
    const again = start(START, { ...(await env()), FLEX_DATA_DIR: tmp('build-again') });
    try {
      await waitFor(
        async () => ready(again) || gone(again),
        90_000,
        () => again.out + again.err,
      );
      expect(ready(again)).toBeDefined();
      expect(again.err).not.toMatch(/building/);
      expect(readFileSync(builds, 'utf8')).toBe('built\n');
    } finally {
      await stop(again);
    }
  }, 600_000);
});
