import { readFileSync } from 'node:fs';
import { CliError } from './client';
import { EXIT } from './exit-codes';

/** A JSON file the user named: unreadable or not JSON is bad input (exit 2). */
export function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, EXIT.usage);
  }
}
