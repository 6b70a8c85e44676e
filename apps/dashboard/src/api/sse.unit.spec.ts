import { sseParser, type SseMessage } from './sse';

describe('sseParser', () => {
  const parse = (...chunks: string[]) => {
    const out: SseMessage[] = [];
    const feed = sseParser((m) => out.push(m));
    chunks.forEach(feed);
    return out;
  };

  it('reads id, event and data, joining data lines, across chunk boundaries', () => {
    expect(parse('id: 7\nevent: start\ndata: {"a":', '1}\ndata: x\n', '\n')).toEqual([
      { id: '7', event: 'start', data: '{"a":1}\nx' },
    ]);
  });

  it('takes CRLF and CR line ends, ignores comments and blank messages, keeps the last id', () => {
    expect(parse(': keep-alive\r\n\r\nid: 1\r', '\ndata: a\r\rdata: b\n\n')).toEqual([
      { id: '1', event: undefined, data: 'a' },
      { id: '1', event: undefined, data: 'b' },
    ]);
  });

  it('dispatches nothing until the blank line arrives', () => {
    expect(parse('data: half')).toEqual([]);
  });
});
