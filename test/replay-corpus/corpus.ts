import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '@flex/event-store';
import { parseExportFile } from '@flex/replay';
import type { DecisionSettings } from '../../apps/flex/src/replay/replay-adapters';

/** One recorded run of the corpus: its file, the settings it ran with, its stored events. */
export interface CorpusRun {
  file: string;
  settings: DecisionSettings;
  events: StoredEvent[];
}

/** Every run under test/replay-corpus (written by `npm run corpus:record`), by file name. */
export function loadCorpus(): CorpusRun[] {
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.ndjson'))
    .sort();
  return files.map((file) => {
    const text = readFileSync(join(__dirname, file), 'utf8');
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as {
      kind?: string;
      settings: DecisionSettings;
    };
    if (header.kind !== 'corpus') throw new Error(`${file}: the first line is not the corpus header`);
    return { file, settings: header.settings, events: parseExportFile(text) };
  });
}
