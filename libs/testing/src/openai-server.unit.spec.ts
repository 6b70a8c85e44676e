import { startOpenAiServer, type OpenAiServer } from './openai-server';

describe('local OpenAI-compatible server', () => {
  let server: OpenAiServer;
  beforeEach(async () => {
    server = await startOpenAiServer();
  });
  afterEach(() => server.close());

  const ask = () =>
    fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('answers scripted replies in order and records requests', async () => {
    server.enqueue(
      { kind: 'json', content: { a: 1 } },
      { kind: 'status', status: 429, headers: { 'retry-after': '1' } },
    );
    const first = (await (await ask()).json()) as any;
    expect(JSON.parse(first.choices[0].message.content)).toEqual({ a: 1 });
    const second = await ask();
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(server.requests.map((r) => r.body.model)).toEqual(['m', 'm']);
  });

  it('can hang until the client gives up', async () => {
    server.enqueue({ kind: 'hang' });
    await expect(
      fetch(`${server.baseUrl}/chat/completions`, {
        method: 'POST',
        body: '{}',
        signal: AbortSignal.timeout(100),
      }),
    ).rejects.toThrow();
  });
});
