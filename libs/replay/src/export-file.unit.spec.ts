import { ExportFileError, parseExportFile } from './export-file';
import { stream } from './replay.spec-helper';

describe('parseExportFile: the events of one run export', () => {
  const lines = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join('\n');
  const events = stream(['start', {}], ['plan_requested', {}]);

  it('reads every event and skips blank lines and records with a kind (a chain head)', () => {
    const text = `${lines([{ kind: 'corpus' }, events[0]])}\n\n${lines([events[1], { kind: 'head', hash: 'x' }])}\n`;
    expect(parseExportFile(text)).toEqual(events);
  });

  it.each([
    ['not JSON', '{"position":', 1, ''],
    ['a field of the wrong type', lines([{ ...events[0], version: 'one' }]), 1, '/version'],
    ['a missing payload', lines([{ ...events[0], payload: undefined }]), 1, '/payload'],
    ['a gap in the versions', lines([events[0], { ...events[1], version: 3 }]), 2, '/version'],
    ['two streams', lines([events[0], { ...events[1], streamId: 'run-r2' }]), 2, '/streamId'],
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
