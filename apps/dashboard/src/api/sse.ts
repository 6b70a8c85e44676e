/** One message of a text/event-stream: its `id:`, `event:` and the joined `data:` lines. */
export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/**
 * An incremental text/event-stream parser (the HTML standard's rules: lines end in CRLF, LF or CR;
 * `:` starts a comment; a blank line dispatches; data lines join with LF). Feed it decoded chunks
 * as they arrive; a message split across chunks is dispatched once its blank line arrives.
 */
export function sseParser(onMessage: (message: SseMessage) => void): (chunk: string) => void {
  let buffer = '';
  let data: string[] = [];
  let id: string | undefined;
  let event: string | undefined;
  const line = (text: string): void => {
    if (text === '') {
      if (data.length) onMessage({ id, event, data: data.join('\n') });
      data = [];
      event = undefined;
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
    else if (field === 'event') event = value;
  };
  return (chunk) => {
    buffer += chunk;
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      // A lone CR at the end may be the first half of a CRLF still to come.
      if (end < 0 || (buffer[end] === '\r' && end === buffer.length - 1)) return;
      const width = buffer.startsWith('\r\n', end) ? 2 : 1;
      line(buffer.slice(0, end));
      buffer = buffer.slice(end + width);
    }
  };
}

/** Read a response body as SSE until it ends (or `signal` aborts), handing each message over. */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  onMessage: (message: SseMessage) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const feed = sseParser(onMessage);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      feed(decoder.decode(value, { stream: true }));
    }
    feed(decoder.decode());
  } finally {
    reader.releaseLock();
  }
}
