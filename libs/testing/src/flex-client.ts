import type { FlexEventFrame } from '@flex/contracts';

/** A frame as tests read it, plus the SSE `id:` line (the event's position). */
export type Frame = Omit<FlexEventFrame, 'payload'> & { payload?: any; position: number };

/** A minimal client of the public HTTP/SSE interface (DESIGN §7), for black-box tests. */
export class FlexClient {
  constructor(readonly baseUrl: string, readonly token: string) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json', ...extra };
  }

  async json(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers: this.headers(), body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  /** POST run.stream and collect every frame until the server ends the stream. */
  async runStream(envelope: unknown, headers: Record<string, string> = {}): Promise<{ status: number; frames: Frame[]; body?: any; runId?: string }> {
    const res = await fetch(`${this.baseUrl}/api/v1/flex/run.stream`, { method: 'POST', headers: this.headers({ Accept: 'text/event-stream', ...headers }), body: JSON.stringify(envelope) });
    if (!res.headers.get('content-type')?.includes('text/event-stream')) return { status: res.status, frames: [], body: await res.json() };
    return { status: res.status, frames: parseSse(await res.text()), runId: res.headers.get('x-flex-run-id') ?? undefined };
  }

  async events(runId: string, lastEventId?: number): Promise<Frame[]> {
    const res = await fetch(`${this.baseUrl}/api/v1/flex/runs/${runId}/events`, { headers: this.headers(lastEventId === undefined ? {} : { 'Last-Event-ID': String(lastEventId) }) });
    if (!res.ok) throw new Error(`events ${res.status}: ${await res.text()}`);
    return parseSse(await res.text());
  }
}

export function parseSse(text: string): Frame[] {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').filter((l) => !l.startsWith(':')))
    .filter((lines) => lines.some((l) => l.startsWith('data:')))
    .map((lines) => {
      const id = lines.find((l) => l.startsWith('id:'))?.slice(3).trim();
      const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
      return { ...JSON.parse(data), position: Number(id) } as Frame;
    });
}
