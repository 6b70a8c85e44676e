import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineAgent, startAgent, type AgentDefinition, type AgentHandle } from '@flex/agent-sdk';
import { contentGeneratorAgent, startReferenceAgents } from '@flex/agents-reference';
import type { StoredEvent } from '@flex/event-store';
import { loadConfig } from '@flex/runtime';
import { FlexClient, parseSse, waitFor, type Frame } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';

export const TOKENS = 'exec-client:client,exec-operator:operator';

/** The sample envelope (examples/envelope.json) with runtime policies. */
export function envelopeWithPolicies(runtime: unknown[]): Record<string, any> {
  const raw = JSON.parse(readFileSync(join(__dirname, '../../examples/envelope.json'), 'utf8'));
  return { ...raw, policies: { ...raw.policies, runtime } };
}

/** An embedded Flex (in-memory PGlite, in-process bus) without agents: the test starts its own. */
export async function startFlex(
  env: Record<string, string> = {},
): Promise<{ flex: EmbeddedFlex; client: FlexClient; operator: FlexClient }> {
  const flex = await startEmbedded({
    config: loadConfig({ FLEX_API_TOKENS: TOKENS, FLEX_LOG_LEVEL: 'silent', PORT: '0', ...env }),
    dataDir: null,
    agents: false,
  });
  return {
    flex,
    client: new FlexClient(flex.url, 'exec-client'),
    operator: new FlexClient(flex.url, 'exec-operator'),
  };
}

/** {@link startFlex} with every reference agent; `stop` stops them and the system. */
export async function startFlexWithAgents(env: Record<string, string> = {}) {
  const started = await startFlex(env);
  const { messaging, prefix } = started.flex.runtime;
  const agents = await startReferenceAgents({ messaging, prefix });
  await agents.ready;
  const stop = async () => {
    await agents.stop();
    await started.flex.close();
  };
  return { ...started, stop };
}

/**
 * A second writer (`capabilityId`, the reference writer's contract) that writes as the reference
 * writer while `works()`, and otherwise fails with a retryable `backup_down`.
 */
export function backupWriter(capabilityId: string, works: () => boolean, onCall = () => {}): AgentDefinition {
  return defineAgent({
    registration: { ...contentGeneratorAgent.registration, capabilityId, displayName: 'Backup writer' },
    handle: async (invocation, ctx) => {
      onCall();
      if (!works())
        throw Object.assign(new Error('backup is down'), { code: 'backup_down', retryable: true });
      const writer = contentGeneratorAgent.registration.capabilityId;
      return contentGeneratorAgent.handle({ ...invocation, capabilityId: writer }, ctx);
    },
  });
}

/**
 * Start the reference strategy agent and the test's own agents on the embedded messaging, wait
 * until all are registered, and return what stops them.
 */
export async function startTestAgents(
  flex: EmbeddedFlex,
  agents: readonly AgentDefinition[],
): Promise<() => Promise<void>> {
  const opts = { messaging: flex.runtime.messaging, prefix: flex.runtime.prefix };
  const strategy = await startReferenceAgents({ ...opts, only: ['StrategyManagerAgent.briefing'] });
  const handles: AgentHandle[] = [];
  for (const agent of agents) handles.push(await startAgent(agent, opts));
  await Promise.all([strategy.ready, ...handles.map((h) => h.ready)]);
  return async () => {
    await Promise.all(handles.map((h) => h.stop()));
    await strategy.stop();
  };
}

/** POST run.stream without waiting for the end: the run id at once, the frames when the server ends the stream. */
export async function openRun(
  client: FlexClient,
  envelope: unknown,
): Promise<{ runId: string; frames: Promise<Frame[]> }> {
  const res = await fetch(`${client.baseUrl}/api/v1/flex/run.stream`, {
    method: 'POST',
    headers: client.headers({ Accept: 'text/event-stream' }),
    body: JSON.stringify(envelope),
  });
  if (res.status !== 200) throw new Error(`run.stream ${res.status}: ${await res.text()}`);
  return { runId: res.headers.get('x-flex-run-id') as string, frames: res.text().then(parseSse) };
}

export async function runEvents(flex: EmbeddedFlex, runId: string): Promise<StoredEvent[]> {
  return flex.runtime.store.readStream(`run-${runId}`);
}

/** Poll the run's stream until an event matches. */
export function waitForEvent(
  flex: EmbeddedFlex,
  runId: string,
  match: (e: StoredEvent) => boolean,
  timeoutMs = 20_000,
): Promise<StoredEvent> {
  return waitFor(
    async () => (await runEvents(flex, runId)).find(match),
    timeoutMs,
    () => `no matching event on run ${runId}`,
  );
}

export const isTerminal = (e: StoredEvent) => e.type === 'complete' || e.type === 'run_failed';
