import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/**
 * Where archived runs go (docs/AUDIT.md § Retention): a directory, or an S3-compatible bucket
 * (archive-s3.ts). `put` resolves once the object is durable and returns its location, the string
 * kept in `run_archives.location`; `get` reads it back by that location.
 */
export interface ArchiveStore {
  readonly kind: 'directory' | 's3';
  put(name: string, bytes: Buffer): Promise<string>;
  get(location: string): Promise<Buffer>;
}

/** An archive that could not be read back (missing, unreachable, or not of this store). */
export class ArchiveUnavailableError extends Error {
  override readonly name = 'ArchiveUnavailableError';
  readonly code = 'ARCHIVE_UNAVAILABLE';
  constructor(
    readonly location: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`archive ${location}: ${message}`, options);
  }
}

/**
 * Files in one directory, each written to a temporary name, flushed, then renamed over the final
 * one (and the directory flushed): a reader sees a whole archive or none, even across a crash, and
 * writing the same archive again (a cycle that died before its delete) replaces it whole.
 */
export class DirectoryArchiveStore implements ArchiveStore {
  readonly kind = 'directory';
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = resolve(dir);
  }

  async put(name: string, bytes: Buffer): Promise<string> {
    const path = join(this.#dir, name);
    if (dirname(path) !== this.#dir) throw new Error(`archive name ${name} must be a plain file name`);
    await mkdir(this.#dir, { recursive: true });
    const temporary = `${path}.${randomUUID()}.tmp`;
    try {
      const file = await open(temporary, 'w');
      try {
        await file.writeFile(bytes);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await syncDirectory(this.#dir);
    return path;
  }

  async get(location: string): Promise<Buffer> {
    try {
      return await readFile(location);
    } catch (error) {
      throw new ArchiveUnavailableError(location, (error as Error).message, { cause: error });
    }
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
