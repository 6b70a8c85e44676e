import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineAgent, startAgent, type AgentHandle } from '@flex/agent-sdk';
import {
  contentGeneratorAgent,
  startReferenceAgents,
  strategyManagerAgent,
  type ReferenceAgents,
} from '@flex/agents-reference';
import type { StoredEvent } from '@flex/event-store';
import { startOpenAiServer, type FlexClient, type OpenAiServer } from '@flex/testing';
import { llmAnswer } from '../../services/planner/src/llm/llm-answers.fixture';
import type { EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { SETTINGS_FILE } from './corpus';
import {
  backupWriter,
  envelopeWithPolicies,
  openRun,
  startFlex,
  startFlexWithAgents,
  startTestAgents,
  waitForEvent,
} from '../integration/embedded-run';

/**
 * Records the replay corpus (docs/AUDIT.md, "Verified replay"): each scenario drives a real run
 * through the embedded system's HTTP API and writes the run's export (`GET runs/:id/export`) to
 * test/replay-corpus/<scenario>.ndjson. Re-record on purpose (a decision changed and the change is
 * meant): `npm run corpus:record`. Not a spec: CI only verifies the files (replay-corpus.unit.spec.ts).
 */
const DIR = __dirname;
const ended = (e: StoredEvent) => ['complete', 'run_failed', 'run_cancelled'].includes(e.type);
const policy = (id: string, trigger: object, action: object) => ({ id, trigger, action });
const hitlOnStart = policy(
  'review',
  { kind: 'onStart' },
  { type: 'hitl', rationale: 'Check the plan first' },
);

/**
 * The run's export, exactly as `GET runs/:id/export` writes it (its chain head last, so
 * `flex verify-export` checks a corpus file as any export), and in settings.json the decision
 * settings the system ran with (a replay decides with the same).
 */
async function save(
  flex: EmbeddedFlex,
  operator: FlexClient,
  scenario: string,
  runId: string,
): Promise<void> {
  const { FLEX_MAX_PLAN_ATTEMPTS, FLEX_MAX_REPLANS, FLEX_MAX_HITL_REQUESTS, FLEX_NODE_MAX_ATTEMPTS } =
    flex.runtime.config;
  const settings = {
    FLEX_MAX_PLAN_ATTEMPTS,
    FLEX_MAX_REPLANS,
    FLEX_MAX_HITL_REQUESTS,
    FLEX_NODE_MAX_ATTEMPTS,
  };
  const res = await fetch(`${operator.baseUrl}/api/v1/flex/runs/${runId}/export`, {
    headers: operator.headers({ Accept: 'application/x-ndjson' }),
  });
  if (res.status !== 200) throw new Error(`GET runs/${runId}/export ${res.status}: ${await res.text()}`);
  writeFileSync(join(DIR, `${scenario}.ndjson`), await res.text());
  const all = existsSync(SETTINGS_FILE) ? JSON.parse(readFileSync(SETTINGS_FILE, 'utf8')) : {};
  const sorted = Object.fromEntries(
    Object.entries({ ...all, [`${scenario}.ndjson`]: settings }).sort(([a], [b]) => a.localeCompare(b)),
  );
  writeFileSync(SETTINGS_FILE, JSON.stringify(sorted, null, 2) + '\n');
}

function resolve(
  operator: FlexClient,
  runId: string,
  requestId: string,
  decision: string,
  payload?: unknown,
) {
  return operator.json('POST', '/api/v1/flex/hitl/resolve', { runId, requestId, decision, payload });
}

async function resume(operator: FlexClient, runId: string, expectedPlanVersion: number): Promise<void> {
  const res = await fetch(`${operator.baseUrl}/api/v1/flex/run.resume`, {
    method: 'POST',
    headers: operator.headers({ Accept: 'text/event-stream' }),
    body: JSON.stringify({ runId, expectedPlanVersion }),
  });
  if (res.status !== 200) throw new Error(`run.resume ${res.status}: ${await res.text()}`);
  void res.text();
}

type Act = (runId: string) => Promise<unknown>;

/** Start a run, act on it (an operator's part), wait until `until` is recorded, save the run. */
async function recordRun(
  { flex, client, operator }: { flex: EmbeddedFlex; client: FlexClient; operator: FlexClient },
  scenario: string,
  envelope: unknown,
  act?: Act,
  until: (e: StoredEvent) => boolean = ended,
): Promise<string> {
  const { runId } = await openRun(client, envelope);
  await act?.(runId);
  await waitForEvent(flex, runId, until, 30_000);
  await save(flex, operator, scenario, runId);
  return runId;
}

describe('replay corpus: record runs of every path (reference agents)', () => {
  let flex: EmbeddedFlex;
  let client: FlexClient;
  let operator: FlexClient;
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ flex, client, operator, stop } = await startFlexWithAgents());
  }, 60_000);
  afterAll(async () => {
    await stop?.();
  });

  const hitlRequest = (runId: string) =>
    waitForEvent(flex, runId, (e) => e.type === 'hitl_request', 30_000).then(() => runId);
  const record = (scenario: string, policies: unknown[], act?: Act, until = ended) =>
    recordRun({ flex, client, operator }, scenario, envelopeWithPolicies(policies), act, until);
  const trigger = (runId: string, action: string) =>
    operator.json('POST', `/api/v1/flex/runs/${runId}/${action}`, {});

  it('complete: a draft refused, a second one proven, run to the end (onNodeComplete emit, onMetricBelow emit)', async () => {
    const structured = policy(
      'structured',
      { kind: 'onNodeComplete', selector: { kind: 'structuring' } },
      { type: 'emit', event: 'structured' },
    );
    const noTokens = policy(
      'no_tokens',
      { kind: 'onMetricBelow', metric: 'tokens', threshold: 1 },
      { type: 'emit', event: 'no_usage' },
    );
    const envelope = envelopeWithPolicies([structured, noTokens]);
    envelope.policies = { ...envelope.policies, planner: { topology: { maxDepth: 3 } } };
    await recordRun({ flex, client, operator }, 'complete', envelope);
  }, 60_000);

  it('hitl-approve: onStart hitl, approved, completes', async () => {
    await record('hitl-approve', [hitlOnStart], async (runId) => {
      await resolve(operator, await hitlRequest(runId), 'hitl-1', 'approve');
    });
  }, 60_000);

  it('hitl-reject: onStart hitl, rejected, fails', async () => {
    await record('hitl-reject', [hitlOnStart], async (runId) => {
      await resolve(operator, await hitlRequest(runId), 'hitl-1', 'reject');
    });
  }, 60_000);

  it('pause-resume: onStart pause, resumed, completes', async () => {
    const hold = policy('hold', { kind: 'onStart' }, { type: 'pause', reason: 'held for the corpus' });
    await record('pause-resume', [hold], async (runId) => {
      await waitForEvent(flex, runId, (e) => e.type === 'run_paused');
      await resume(operator, runId, 1);
    });
  }, 60_000);

  it('manual-actions: a manual replan deferred behind a HITL wait, a manual emit, approval, the replan, completes', async () => {
    const policies = [
      hitlOnStart,
      policy('rethink', { kind: 'manual' }, { type: 'replan' }),
      policy('shout', { kind: 'manual' }, { type: 'emit', event: 'operator_shout' }),
    ];
    await record('manual-actions', policies, async (runId) => {
      await hitlRequest(runId);
      for (const id of ['shout', 'rethink']) await trigger(runId, `policies/${id}/trigger`);
      await waitForEvent(flex, runId, (e) => e.type === 'replan_deferred');
      await resolve(operator, runId, 'hitl-1', 'approve');
    });
  }, 60_000);

  it('node-replan: onNodeComplete replan, the replanned run completes', async () => {
    const condition = { '>=': [{ var: 'copyVariants.length' }, 2] };
    const trigger = { kind: 'onNodeComplete', selector: { kind: 'execution' }, condition };
    await record('node-replan', [policy('low_quality', trigger, { type: 'replan' })]);
  }, 60_000);

  it('timeout-fail: onTimeout fails the run while it waits for an operator', async () => {
    const fail = { type: 'fail', message: 'deadline passed' };
    await record('timeout-fail', [hitlOnStart, policy('deadline', { kind: 'onTimeout', ms: 1500 }, fail)]);
  }, 60_000);

  it('pause-cancel: an operator pauses a run waiting for a human, then cancels it', async () => {
    await record('pause-cancel', [hitlOnStart], async (runId) => {
      await trigger(await hitlRequest(runId), 'pause');
      await trigger(runId, 'cancel');
    });
  }, 60_000);

  it('open: a run still waiting for an operator (verified up to its last event)', async () => {
    const waiting = (e: StoredEvent) => e.type === 'hitl_request';
    const runId = await record('open', [hitlOnStart], undefined, waiting);
    // Recorded: now end it, so that its stream closes before the system does.
    await trigger(runId, 'cancel');
  }, 60_000);
});

const WRITER = contentGeneratorAgent.registration.capabilityId;
const BACKUP = 'ZZ.backupWriter';

describe('replay corpus: record failures and fallbacks (agents defined here)', () => {
  let flex: EmbeddedFlex;
  let client: FlexClient;
  let operator: FlexClient;
  let stopAgents: (() => Promise<void>) | undefined;
  let backupWorks = true;

  beforeAll(async () => {
    ({ flex, client, operator } = await startFlex({ FLEX_NODE_MAX_ATTEMPTS: '2' }));
    const broken = defineAgent({
      registration: contentGeneratorAgent.registration,
      handle: async (_invocation, ctx) => {
        ctx.logger.warn('the writer is broken today');
        return { copyVariants: 'not an array' };
      },
    });
    const backup = backupWriter(BACKUP, () => backupWorks);
    stopAgents = await startTestAgents(flex, [broken, backup]);
  }, 60_000);
  afterAll(async () => {
    await stopAgents?.();
    await flex?.close();
  });

  it('fallback: the writer breaks its contract (onValidationFail emit), retries, the backup capability takes over', async () => {
    backupWorks = true;
    const invalid = policy(
      'writer_invalid',
      { kind: 'onValidationFail', selector: { capabilityId: WRITER } },
      { type: 'emit', event: 'writer_output_invalid' },
    );
    await recordRun({ flex, client, operator }, 'fallback', envelopeWithPolicies([invalid]));
  }, 60_000);

  it('node-failure: writer and backup both fail, the operator asked for the node output rejects, the run fails', async () => {
    backupWorks = false;
    await recordRun({ flex, client, operator }, 'node-failure', envelopeWithPolicies([]), async (runId) => {
      const asked = (e: StoredEvent) => e.type === 'hitl_request';
      const request = await waitForEvent(flex, runId, asked, 30_000);
      await resolve(operator, runId, (request.payload as { requestId: string }).requestId, 'reject');
    });
  }, 60_000);
});

describe('replay corpus: record an LLM planner run (a local OpenAI-compatible server)', () => {
  let llm: OpenAiServer;
  let flex: EmbeddedFlex;
  let client: FlexClient;
  let operator: FlexClient;
  let agents: ReferenceAgents;

  beforeAll(async () => {
    llm = await startOpenAiServer();
    llm.setFallback(() => ({ kind: 'json', content: llmAnswer() }));
    ({ flex, client, operator } = await startFlex({
      FLEX_MAX_PLAN_ATTEMPTS: '2',
      FLEX_PLANNER: 'llm',
      FLEX_LLM_BASE_URL: llm.baseUrl,
      FLEX_LLM_MODEL: 'stubborn',
    }));
    agents = await startReferenceAgents({ messaging: flex.runtime.messaging, prefix: flex.runtime.prefix });
    await agents.ready;
  }, 90_000);
  afterAll(async () => {
    await agents?.stop();
    await flex?.close();
    await llm?.close();
  });

  it('llm-fallback: two LLM drafts refused (taken from the record), the rule-based fallback drafts, completes', async () => {
    const envelope = envelopeWithPolicies([]);
    envelope.policies = { planner: { topology: { requiredKinds: ['validation'] } } };
    await recordRun({ flex, client, operator }, 'llm-fallback', envelope);
  }, 90_000);
});

const on = (flex: EmbeddedFlex) => ({ messaging: flex.runtime.messaging, prefix: flex.runtime.prefix });

describe('replay corpus: record an agent unreachable past its budget (agents defined here)', () => {
  let flex: EmbeddedFlex;
  let client: FlexClient;
  let operator: FlexClient;
  let strategy: AgentHandle | undefined;
  let writer: AgentHandle | undefined;
  const startWriter = async () => {
    writer = await startAgent(contentGeneratorAgent, on(flex));
    await writer.ready;
  };

  beforeAll(async () => {
    ({ flex, client, operator } = await startFlex({ FLEX_UNREACHABLE_BUDGET_MS: '1500' }));
    // The strategist stops the writer before it answers: the writer's node starts with nobody serving it.
    const stopsTheWriter = defineAgent({
      registration: strategyManagerAgent.registration,
      handle: async (invocation, ctx) => {
        await writer?.stop();
        writer = undefined;
        return strategyManagerAgent.handle(invocation, ctx);
      },
    });
    strategy = await startAgent(stopsTheWriter, on(flex));
    await strategy.ready;
    await startWriter();
  }, 60_000);
  afterAll(async () => {
    await writer?.stop();
    await strategy?.stop();
    await flex?.close();
  });

  it('unreachable: the writer gone past a 1.5 s budget fails its attempt, the human asked instead; the writer is back, the request withdrawn, completes', async () => {
    await recordRun({ flex, client, operator }, 'unreachable', envelopeWithPolicies([]), async (runId) => {
      await waitForEvent(flex, runId, (e) => e.type === 'hitl_request', 30_000);
      await startWriter();
    });
  }, 90_000);
});
