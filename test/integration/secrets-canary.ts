import { randomUUID } from 'node:crypto';
import { format } from 'node:util';
import type { AgentDefinition, AgentInvocation } from '@flex/agent-sdk';
import { contentGeneratorAgent, strategyManagerAgent } from '@flex/agents-reference';
import { STRATEGY_BRIEFING } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { sql, type Kysely } from 'kysely';
import { sampleEnvelope } from '../sample-run';
import { replayCommand } from '../../apps/flex/src/cli/events-command';
import { runsCommand } from '../../apps/flex/src/cli/runs-command';

/**
 * The canary test's parts (docs/security/secrets.md): secrets planted in an envelope, an agent that
 * asks for one and then tries to leak it, and every place Flex writes to, searched for them.
 */

export const CANARY_CAPABILITY = 'CanaryStrategy.briefing';

/** Unique strings planted as secrets, one per way of marking one. */
export interface Canaries {
  /** `inputs.credentials.deployKey`: the key pattern matches `credentials`; the canary agent asks for it. */
  credential: string;
  /** `inputs.contextBundles[0].payload.privateKey`: the key pattern (what the copywriter once echoed). */
  pem: string;
  /** `inputs.launchCode`: marked `{"$sensitive": …}`. */
  marked: string;
  /** `metadata.sessionToken`: the key pattern, outside the inputs. */
  session: string;
}

export function makeCanaries(): Canaries {
  const id = () => randomUUID().replace(/-/g, '');
  return {
    credential: `canary-credential-${id()}`,
    pem: `-----BEGIN PRIVATE KEY-----canary${id()}`,
    marked: `canary-marked-${id()}`,
    session: `canary-session-${id()}`,
  };
}

export const allCanaries = (c: Canaries): string[] => [c.credential, c.pem, c.marked, c.session];

/** The sample envelope with the four canaries planted. */
export function canaryEnvelope(c: Canaries, objectiveSuffix = ''): Record<string, any> {
  const envelope = sampleEnvelope();
  const bundle = envelope.inputs.contextBundles[0];
  bundle.payload.privateKey = c.pem;
  envelope.inputs.credentials = { deployKey: c.credential };
  envelope.inputs.launchCode = { $sensitive: c.marked };
  envelope.metadata = { sessionToken: c.session };
  envelope.objective = `${envelope.objective}${objectiveSuffix}`;
  return envelope;
}

export interface Seen {
  capabilityId: string;
  invocation: AgentInvocation;
}

/**
 * The strategy agent, registered as a capability that asks for `credentials`. It records what it
 * gets and leaks the credential: in its error on attempt 1, in its output on attempt 2; attempt 3
 * answers cleanly, so the run completes.
 */
function canaryStrategy(seen: Seen[]): AgentDefinition {
  return {
    registration: {
      ...STRATEGY_BRIEFING,
      capabilityId: CANARY_CAPABILITY,
      displayName: 'Canary strategy (asks for credentials, then leaks them)',
      inputContract: [...STRATEGY_BRIEFING.inputContract, 'credentials'],
    },
    handle: async (invocation, ctx) => {
      seen.push({ capabilityId: CANARY_CAPABILITY, invocation: structuredClone(invocation) });
      const key = JSON.stringify(invocation.inputs.credentials);
      if (invocation.attempt === 1) throw new Error(`could not sign in with ${key}`);
      const output = await strategyManagerAgent.handle(invocation, ctx);
      return invocation.attempt === 2 ? plantInFirstString(output, key) : output;
    },
  };
}

/** The reference copywriter, recording what it is sent. */
function recordingCopywriter(seen: Seen[]): AgentDefinition {
  const { capabilityId } = contentGeneratorAgent.registration;
  return {
    registration: contentGeneratorAgent.registration,
    handle: async (invocation, ctx) => {
      seen.push({ capabilityId, invocation: structuredClone(invocation) });
      return contentGeneratorAgent.handle(invocation, ctx);
    },
  };
}

export const canaryAgents = (seen: Seen[]): AgentDefinition[] => [
  canaryStrategy(seen),
  recordingCopywriter(seen),
];

function plantInFirstString(output: Record<string, unknown>, text: string): Record<string, unknown> {
  const copy = structuredClone(output);
  const visit = (node: Record<string, unknown> | unknown[]): boolean => {
    for (const [k, v] of Object.entries(node)) {
      if (typeof v === 'string') {
        (node as Record<string, unknown>)[k] = `${v} ${text}`;
        return true;
      }
      if (v && typeof v === 'object' && visit(v as Record<string, unknown>)) return true;
    }
    return false;
  };
  if (!visit(copy)) throw new Error('no string to plant the canary in');
  return copy;
}

/** A place Flex wrote to, as text. */
export interface Sink {
  name: string;
  text: string;
}

export interface Hit {
  sink: string;
  canary: string;
}

export function hitsIn(sinks: readonly Sink[], canaries: readonly string[]): Hit[] {
  return sinks.flatMap((s) =>
    canaries.filter((c) => s.text.includes(c)).map((canary) => ({ sink: s.name, canary })),
  );
}

/** The figures docs/security/secrets.md quotes. */
export function describeSearch(sinks: readonly Sink[], natsMessages?: number): string {
  const chars = sinks.reduce((n, s) => n + s.text.length, 0);
  const nats = natsMessages === undefined ? '' : ` (${natsMessages} NATS messages recorded)`;
  return `${sinks.length} sinks, ${chars} characters searched${nats}, 0 hits`;
}

/** Every row of every table (events, read models, dead letters, the secret store…) as text. */
export async function databaseSinks(db: Kysely<any>): Promise<Sink[]> {
  const tables = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(db);
  const sinks: Sink[] = [];
  for (const { name } of tables.rows) {
    const rows = await sql<{ row: string }>`select t::text as row from ${sql.table(name)} t`.execute(db);
    sinks.push({
      name: `table ${name} (${rows.rows.length} rows)`,
      text: rows.rows.map((r) => r.row).join('\n'),
    });
  }
  return sinks;
}

/** The API's answers about the run, as raw text: SSE replay, run list, run detail, capabilities, metrics. */
export async function httpSinks(baseUrl: string, token: string, runId: string): Promise<Sink[]> {
  const get = async (path: string, accept = 'application/json') => {
    const res = await fetch(`${baseUrl}${path}`, {
      headers: { Authorization: `Bearer ${token}`, Accept: accept },
    });
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return { name: `GET ${path}`, text: await res.text() };
  };
  return [
    await get(`/api/v1/flex/runs/${runId}/events`, 'text/event-stream'),
    await get('/api/v1/flex/runs'),
    await get(`/api/v1/flex/runs/${runId}`),
    await get('/api/v1/flex/capabilities'),
    await get('/metrics', 'text/plain'),
  ];
}

/**
 * What the CLI prints for the run (`flex runs`, `flex replay <runId>`). (`--verify` is left out: under
 * jest, `fetch`'s JSON comes from another realm than the test's, which canonical JSON refuses.)
 */
export async function cliSinks(baseUrl: string, token: string, runId: string): Promise<Sink[]> {
  const lines: string[] = [];
  const ctx = { baseUrl, token, out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
  const exits = [
    await runsCommand(ctx, { all: false, json: false }),
    await replayCommand(ctx, runId, { verify: false, json: false }),
  ];
  if (exits.some((code) => code !== 0)) throw new Error(`the CLI failed (${exits}):\n${lines.join('\n')}`);
  return [{ name: 'CLI flex runs; flex replay', text: lines.join('\n') }];
}

/** This process's stdout, stderr and console, kept (not printed) from start() until stop(). */
export function captureOutput(): { text(): string; stop(): void } {
  const chunks: string[] = [];
  const keep = (chunk: unknown) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  const writes = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = keep as typeof process.stdout.write;
  process.stderr.write = keep as typeof process.stderr.write;
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const spies = methods.map((m) =>
    jest.spyOn(console, m).mockImplementation((...args: unknown[]) => void chunks.push(format(...args))),
  );
  return {
    text: () => chunks.join(''),
    stop: () => {
      process.stdout.write = writes.out;
      process.stderr.write = writes.err;
      spies.forEach((s) => s.mockRestore());
    },
  };
}

/**
 * The agents got exactly what they asked for: the canary agent the credential (its facet asks) on
 * every attempt and no other secret (references where they were); the copywriter none at all.
 */
export function expectAgentsGotOnlyWhatTheyAsked(seen: readonly Seen[], c: Canaries): void {
  const canary = seen.filter((s) => s.capabilityId === CANARY_CAPABILITY);
  const writer = seen.filter((s) => s.capabilityId !== CANARY_CAPABILITY);
  expect(canary.map((s) => s.invocation.attempt)).toEqual([1, 2, 3]);
  expect(writer.length).toBeGreaterThan(0);
  for (const { invocation } of canary) {
    expect(invocation.inputs.credentials).toEqual({ deployKey: c.credential });
    expect(JSON.stringify(invocation.inputs.assetBundle)).toMatch(/"privateKey":\{"\$secret":"s\d+"\}/);
    expect(invocation.context.inputs?.launchCode).toEqual({ $secret: expect.stringMatching(/^s\d+$/) });
    expect(invocation.context.inputs?.credentials).toEqual({ $secret: expect.stringMatching(/^s\d+$/) });
    const others = hitsIn([{ name: 'canary invocation', text: JSON.stringify(invocation) }], allCanaries(c));
    expect(others.map((h) => h.canary)).toEqual([c.credential]);
  }
  for (const { invocation } of writer)
    expect(hitsIn([{ name: 'copywriter', text: JSON.stringify(invocation) }], allCanaries(c))).toEqual([]);
}

/** What the run recorded: paths replaced, the leaky error redacted, the leaky output refused, complete. */
export function expectRunRecordedTheLeaks(events: readonly StoredEvent[]): void {
  const start = events[0].payload as { normalization: Array<{ path: string; note: string }> };
  expect(
    start.normalization
      .filter((n) => n.note.startsWith('secret'))
      .map((n) => n.path)
      .sort(),
  ).toEqual(
    [
      'inputs.contextBundles[0].payload.privateKey',
      'inputs.credentials',
      'inputs.launchCode',
      'metadata.sessionToken',
    ].sort(),
  );
  const payloads = (type: string) => events.filter((e) => e.type === type).map((e) => e.payload as any);
  expect(payloads('node_error').find((p) => p.attempt === 1)?.error?.message).toContain('[secret]');
  expect(payloads('validation_error')).toContainEqual(
    expect.objectContaining({
      scope: 'capability_output',
      attempt: 2,
      errors: [expect.objectContaining({ keyword: 'secret' })],
    }),
  );
  expect(events[events.length - 1].type).toBe('complete');
}
