import { randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
  readonly code = 'DATA_DIR_LOCKED';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `another Flex process (pid ${pid}) is using ${dataDir}; stop it first or set FLEX_DATA_DIR to another directory`,
    );
  }
}

/** A takeover guard left by a process that died holding it is cleared after this long. */
const GUARD_STALE_MS = 10_000;
const RETRY_MS = 25;
/** How long a start waits while other processes take turns on a stale lock (a loaded machine is slow). */
const CONTEND_MS = 30_000;

/**
 * PGlite is one process's database: two processes on one data directory would corrupt it. The lock
 * file holds the owner's pid and appears whole or not at all (written aside, then hard-linked into
 * place: the link fails if the file exists), so of two starts at the same moment exactly one wins
 * and the other refuses with DATA_DIR_LOCKED. A lock left by a process that no longer exists is
 * taken over; the removal happens under a guard directory (mkdir is atomic) and only if the file
 * still names the dead pid, so two processes taking over the same stale lock cannot both win.
 */
export async function lockDataDir(dataDir: string): Promise<() => void> {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'flex.lock');
  for (const deadline = Date.now() + CONTEND_MS; Date.now() < deadline;) {
    if (tryCreate(file)) return () => releaseIfOurs(file);
    const holder = holderOf(file);
    if (holder === 'gone') continue;
    if (holder !== 'unreadable' && holder !== process.pid && isAlive(holder))
      throw new DataDirLockedError(dataDir, holder);
    if (!removeStale(file, holder)) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  throw new Error(`could not lock ${dataDir}: its lock file kept changing`);
}

/** Create the lock file with our pid in it, whole: false if one exists. */
function tryCreate(file: string): boolean {
  const aside = `${file}.${process.pid}.${randomUUID()}`;
  writeFileSync(aside, String(process.pid));
  try {
    linkSync(aside, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(aside, { force: true });
  }
}

type Holder = number | 'gone' | 'unreadable';

function holderOf(file: string): Holder {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
  const pid = Number(text);
  return Number.isInteger(pid) && pid > 0 ? pid : 'unreadable';
}

/** Remove a stale lock under the takeover guard; false when another process holds the guard. */
function removeStale(file: string, stale: Holder): boolean {
  const guard = `${file}.takeover`;
  try {
    mkdirSync(guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (ageMs(guard) > GUARD_STALE_MS) rmSync(guard, { recursive: true, force: true });
    return false;
  }
  try {
    if (holderOf(file) === stale) rmSync(file, { force: true });
    return true;
  } finally {
    rmSync(guard, { recursive: true, force: true });
  }
}

function releaseIfOurs(file: string): void {
  if (holderOf(file) === process.pid) rmSync(file, { force: true });
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
