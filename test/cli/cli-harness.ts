import { spawn } from 'node:child_process';
import { join } from 'node:path';

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
