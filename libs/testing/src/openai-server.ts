import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** What the fake model does with one request. */
export type ScriptedReply =
  | { kind: 'json'; content: unknown; usage?: { prompt_tokens: number; completion_tokens: number } }
  | { kind: 'text'; content: string }
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'hang' };

export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export interface OpenAiServer {
  /** Base URL to put in FLEX_LLM_BASE_URL (ends in /v1). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queue replies, used in order; when the queue is empty, `fallback` answers. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Answer every request with a function of the request, when nothing is queued. */
  setFallback(fn: (req: RecordedRequest) => ScriptedReply): void;
  close(): Promise<void>;
}

/**
 * A real local HTTP server speaking the OpenAI chat-completions protocol (POST /v1/chat/completions
 * and /chat/completions), scripted per call, standing in for an LLM in tests.
 */
export async function startOpenAiServer(): Promise<OpenAiServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  let fallback: (req: RecordedRequest) => ScriptedReply = () => ({
    kind: 'status',
    status: 500,
    body: { error: { message: 'no scripted reply' } },
  });
  const server: Server = createServer((req, res) => void handle(req, res));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || !/\/chat\/completions$/.test(path)) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'invalid JSON body' } }));
      return;
    }
    const recorded = { path, headers: req.headers, body };
    requests.push(recorded);
    const reply = queue.shift() ?? fallback(recorded);
    switch (reply.kind) {
      case 'hang':
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      case 'status':
        res
          .writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
          .end(JSON.stringify(reply.body ?? { error: { message: `status ${reply.status}` } }));
        return;
      case 'text':
      case 'json': {
        const content = reply.kind === 'json' ? JSON.stringify(reply.content) : reply.content;
        const usage =
          reply.kind === 'json' && reply.usage ? reply.usage : { prompt_tokens: 100, completion_tokens: 50 };
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `chatcmpl-${requests.length}`,
            object: 'chat.completion',
            created: 0,
            model: (body as { model?: string }).model ?? 'test-model',
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
          }),
        );
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    setFallback: (fn) => {
      fallback = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
