import { connect } from 'nats';
import type { Sink } from './secrets-canary';

export interface NatsMessage {
  subject: string;
  reply?: string;
  data: string;
  headers: string;
}

export interface NatsRecording {
  messages: NatsMessage[];
  stop(): Promise<void>;
}

/** Every message on the server from now on (`>`: events, deliveries, invocations, replies), as text. */
export async function recordNats(url: string): Promise<NatsRecording> {
  const nc = await connect({ servers: url, name: 'canary-recorder' });
  const messages: NatsMessage[] = [];
  const decoder = new TextDecoder();
  const sub = nc.subscribe('>');
  const done = (async () => {
    for await (const m of sub) {
      const headers = m.headers ? [...m.headers].map(([k, v]) => `${k}: ${v.join(', ')}`).join('\n') : '';
      messages.push({
        subject: m.subject,
        reply: m.reply || undefined,
        data: decoder.decode(m.data),
        headers,
      });
    }
  })();
  await nc.flush();
  return {
    messages,
    stop: async () => {
      await nc.drain();
      await done;
    },
  };
}

/**
 * The recording as sinks, without the invocations of `askedSubject` and the replies to them: the
 * agent whose facet asks is sent the secret, and what it answers is its own doing (Flex refuses to
 * record it). Everything else on the bus must be free of every secret.
 */
export function natsSinks(recording: NatsRecording, askedSubject: string): Sink[] {
  const replies = new Set(
    recording.messages.filter((m) => m.subject === askedSubject && m.reply).map((m) => m.reply),
  );
  const rest = recording.messages.filter((m) => m.subject !== askedSubject && !replies.has(m.subject));
  return [
    {
      name: `NATS: ${rest.length} messages (all but ${askedSubject} and its replies)`,
      text: rest.map((m) => `${m.subject} ${m.reply ?? ''}\n${m.headers}\n${m.data}`).join('\n'),
    },
  ];
}
