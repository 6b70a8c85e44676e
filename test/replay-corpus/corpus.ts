import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '@flex/event-store';
import { parseExportFile } from '@flex/replay';
import type { DecisionSettings } from '../../apps/flex/src/replay/replay-adapters';

/** One recorded run of the corpus: its file, the settings it ran with, its export and stored events. */
export interface CorpusRun {
  file: string;
  settings: DecisionSettings;
  /** The file as `GET runs/:id/export` wrote it (its head line included). */
  text: string;
  events: StoredEvent[];
}

/** Where `npm run corpus:record` writes the decision settings each run was recorded with, by file. */
export const SETTINGS_FILE = join(__dirname, 'settings.json');

/** Every run under test/replay-corpus (written by `npm run corpus:record`), by file name. */
export function loadCorpus(): CorpusRun[] {
  const settings = JSON.parse(readFileSync(SETTINGS_FILE, 'utf8')) as Record<string, DecisionSettings>;
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.ndjson'))
    .sort();
  return files.map((file) => {
    const text = readFileSync(join(__dirname, file), 'utf8');
    if (!settings[file]) throw new Error(`${file}: no settings in ${SETTINGS_FILE}`);
    return { file, settings: settings[file], text, events: parseExportFile(text) };
  });
}
