import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const NAMES = ['chromium', 'chromium-browser'];
const EXTRA_DIRS = ['/usr/bin', '/usr/local/bin', '/usr/lib/chromium'];

/**
 * The path of a headless-capable Chromium for browser tests: FLEX_TEST_CHROMIUM when set, else
 * Debian's `chromium` package, installed with apt-get when it is missing and we are root (as the
 * test set-up does for Postgres and NATS). Otherwise fails saying what is missing: no browser
 * test is skipped for want of a browser. Playwright's own download (`npx playwright install`) is
 * not used. Browser specs in parallel workers install it once: the first takes a lock, the others
 * wait for it and then find the binary.
 */
export async function findOrInstallChromium(): Promise<string> {
  const configured = process.env.FLEX_TEST_CHROMIUM;
  if (configured) return configured;
  return findChromium() ?? (await withInstallLock(() => findChromium() ?? installChromium()));
}

const LOCK = join(tmpdir(), 'flex-chromium-install.lock');
const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** Run `install` holding a lock directory that other workers wait on (a stale one is taken over). */
async function withInstallLock<T>(install: () => T): Promise<T> {
  const deadline = Date.now() + INSTALL_TIMEOUT_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() - lockTime() > INSTALL_TIMEOUT_MS) rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() > deadline)
        throw new Error(`waited ${INSTALL_TIMEOUT_MS} ms for another chromium install`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return install();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function lockTime(): number {
  try {
    return statSync(LOCK).mtimeMs;
  } catch {
    return Date.now();
  }
}

function findChromium(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...EXTRA_DIRS];
  for (const dir of dirs)
    for (const name of NAMES) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  return undefined;
}

function installChromium(): string {
  if (process.getuid?.() !== 0)
    throw new Error(
      'chromium is not installed (looked on PATH, /usr/bin, /usr/local/bin) and this user cannot install it: ' +
        'install it (e.g. `apt-get install chromium`) or set FLEX_TEST_CHROMIUM to a Chromium binary',
    );
  const result = spawnSync(
    'sh',
    [
      '-c',
      'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-liberation',
    ],
    { stdio: 'inherit' },
  );
  const found = findChromium();
  if (result.status !== 0 || !found)
    throw new Error(
      `installing chromium with apt-get failed (exit ${result.status}); set FLEX_TEST_CHROMIUM instead`,
    );
  return found;
}
