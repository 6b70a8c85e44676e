import { chainHash, chainHead, exportLines, GENESIS_HASH, type ChainedEvent } from '@flex/event-store';
import { ExportFileError, parseExportFile } from './export-file';
import { stream } from './replay.spec-helper';

/** The events with their chain links, as an export holds them. */
function chain(events: ReturnType<typeof stream>): ChainedEvent[] {
  const chained: ChainedEvent[] = [];
  let prev = GENESIS_HASH;
  for (const event of events) {
    const hash = chainHash({ ...event, prev });
    chained.push({ ...event, prev, hash });
    prev = hash;
  }
  return chained;
}

/** An export as `GET runs/:id/export` writes it: chained events, then the head line. */
function exported(events: ReturnType<typeof stream>): string {
  const chained = chain(events);
  return exportLines(chained, chainHead(events[0].streamId, chained)).join('\n') + '\n';
}

describe('parseExportFile: the events of one run export, in the format the export writes', () => {
  const lines = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join('\n');
  const events = stream(['start', {}], ['plan_requested', {}]);
  const linked = chain(events);
  const head = { head: { streamId: 'run-r1', version: 2, hash: 'x' } };

  it('reads every event of an export, its head line included, as the store holds them', () => {
    expect(parseExportFile(exported(events))).toEqual(events);
  });

  it.each([
    ['not JSON', '{"position":', 1, ''],
    ['no head line (the last line is an event)', lines(events), 2, ''],
    ['a line with a kind (no such record in an export)', lines([{ kind: 'corpus' }, ...events, head]), 1, ''],
    ['a field of the wrong type', lines([{ ...events[0], version: 'one' }, head]), 1, ''],
    ['a missing payload', lines([{ ...events[0], payload: undefined }, head]), 1, ''],
    ['a gap in the versions', lines([linked[0], { ...linked[1], version: 3 }, head]), 2, '/version'],
    ['two streams', lines([linked[0], { ...linked[1], streamId: 'run-r2' }, head]), 2, '/streamId'],
    [
      'the head of another stream',
      lines([...linked, { head: { ...head.head, streamId: 'run-r2' } }]),
      3,
      '/head/streamId',
    ],
  ])('refuses %s, naming the line and the field', (_what, text, line, path) => {
    let error: unknown;
    try {
      parseExportFile(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExportFileError);
    expect(error).toMatchObject({ code: 'INVALID_EXPORT', line, path });
    expect((error as Error).message).toMatch(new RegExp(`^line ${line}`));
  });
});
