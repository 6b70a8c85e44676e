import { spawn, type ChildProcess } from 'node:child_process';
export { freePort } from './free-port';

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  /** Everything it printed so far (stdout + stderr), for failure messages. */
  output(): string;
  /** SIGKILL, and wait until it is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Start a node process of ours with extra env; its output is kept for diagnostics. */
export function startNodeProcess(
  name: string,
  script: string,
  env: Record<string, string>,
  cwd = process.cwd(),
): ManagedProcess {
  const child = spawn(process.execPath, [script], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (chunk: Buffer) => {
    out += chunk.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return {
    name,
    child,
    output: () => out,
    kill: (signal = 'SIGKILL') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

/** Poll until `check` resolves truthy, or fail after `timeoutMs` with `describe()` in the message. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs: number,
  describe: () => string = () => '',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (let delay = 20; Date.now() < deadline; delay = Math.min(delay * 2, 250)) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, delay));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms${lastError ? ` (last error: ${(lastError as Error).message})` : ''}\n${describe()}`,
  );
}

/** Wait until GET url answers 200. */
export async function waitForHttp(url: string, timeoutMs: number, describe?: () => string): Promise<void> {
  await waitFor(async () => (await fetch(url)).ok, timeoutMs, describe);
}
