import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LOCK = join(__dirname, '../../dist/embedded/data-dir.lock.js');

/**
 * One process that tries to lock `dir` and says how it went; a winner holds the lock until it is
 * told to stop (SIGTERM: it lets go and exits), so a slow starter never finds it released.
 */
const CONTENDER = `
const { lockDataDir } = require(process.argv[1]);
lockDataDir(process.argv[2]).then(
  (unlock) => {
    process.stdout.write('won');
    process.once('SIGTERM', () => { unlock(); process.exit(0); });
    setInterval(() => undefined, 1000);
  },
  (error) => { process.stdout.write('refused:' + error.code); process.exit(1); },
);`;

interface Contender {
  said: Promise<string>;
  stop(): Promise<void>;
}

function contend(dir: string): Contender {
  const child = spawn(process.execPath, ['-e', CONTENDER, LOCK, dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // 'close', not 'exit': a contender that writes and exits at once can be reported as exited
  // before its output is read (under load it was, and said '').
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const said = new Promise<string>((resolve) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // A winner stays (it holds the lock); anyone else exits: its whole output is there at 'close'.
      if (out === 'won') resolve(out);
    });
    void closed.then(() => resolve(out));
  });
  return {
    said,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', '0']);
  return pid ?? 999_999;
}

/** The data directory's lock across processes: of any that try at once, exactly one holds it. */
describe('lockDataDir (processes racing for one data directory)', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'flex-lock-'));
    dirs.push(dir);
    return dir;
  };

  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it.each<[string, (lockFile: string) => void]>([
    ['no lock yet', () => undefined],
    ['a lock left by a process that is gone', (file) => writeFileSync(file, String(deadPid()))],
    ['a lock file with no pid in it (cut short)', (file) => writeFileSync(file, '')],
  ])(
    '%s: exactly one of six wins, the others are refused DATA_DIR_LOCKED (eight rounds)',
    async (_case, given) => {
      for (let round = 0; round < 8; round++) {
        const dir = fresh();
        given(join(dir, 'flex.lock'));
        const contenders = Array.from({ length: 6 }, () => contend(dir));
        try {
          const results = await Promise.all(contenders.map((c) => c.said));
          // The whole list, so a failure shows what every contender said.
          expect([...results].sort()).toEqual([...Array(5).fill('refused:DATA_DIR_LOCKED'), 'won']);
        } finally {
          await Promise.all(contenders.map((c) => c.stop()));
        }
      }
    },
    90_000,
  );

  it('the winner lets go when it stops, and the next one wins; a lock naming a dead process is taken over', async () => {
    const dir = fresh();
    const first = contend(dir);
    expect(await first.said).toBe('won');
    expect(await contend(dir).said).toBe('refused:DATA_DIR_LOCKED');
    await first.stop();
    const second = contend(dir);
    expect(await second.said).toBe('won');
    expect(Number(readFileSync(join(dir, 'flex.lock'), 'utf8'))).toBeGreaterThan(0);
    await second.stop();
    writeFileSync(join(dir, 'flex.lock'), String(deadPid()));
    const third = contend(dir);
    expect(await third.said).toBe('won');
    await third.stop();
  }, 30_000);
});
