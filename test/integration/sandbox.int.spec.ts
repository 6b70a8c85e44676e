import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceAgents, type ReferenceAgents } from '@flex/agents-reference';
import { loadConfig } from '@flex/runtime';
import { FlexClient, startOpenAiServer, type OpenAiServer } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';

const TOKEN = 'sandbox-client-token';
const OTHER = 'sandbox-other-token';
const TOKENS = `${TOKEN}:client,${OTHER}:client`;
const SANDBOX = '/api/v1/flex/sandbox';

/** The whole embedded system with these settings, and the reference agents (deterministic: no model). */
async function startFlex(
  env: Record<string, string>,
): Promise<{ flex: EmbeddedFlex; agents: ReferenceAgents }> {
  const config = loadConfig({ FLEX_API_TOKENS: TOKENS, FLEX_LOG_LEVEL: 'silent', PORT: '0', ...env });
  const flex = await startEmbedded({ config, dataDir: null, agents: false });
  const agents = await startReferenceAgents({
    messaging: flex.runtime.messaging,
    prefix: flex.runtime.prefix,
  });
  await agents.ready;
  return { flex, agents };
}

const envelope = {
  objective: 'Two LinkedIn posts about our summer retreat',
  inputs: { channel: 'linkedin', toneOfVoice: 'warm' },
  outputContract: {
    schema: {
      type: 'object',
      required: ['copyVariants'],
      properties: { copyVariants: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'object' } } },
    },
  },
};

describe('developer sandbox: off unless FLEX_DEV_SANDBOX', () => {
  let flex: EmbeddedFlex;
  let agents: ReferenceAgents;
  beforeAll(async () => ({ flex, agents } = await startFlex({})), 60_000);
  afterAll(async () => {
    await agents?.stop();
    await flex?.close();
  });

  it('serves no sandbox route and lists none in the OpenAPI document', async () => {
    const client = new FlexClient(flex.url, TOKEN);
    expect((await client.json('GET', `${SANDBOX}/metadata`)).status).toBe(404);
    expect((await client.json('POST', `${SANDBOX}/envelope/conversation/start`, {})).status).toBe(404);
    const document = await client.json('GET', '/api/v1/flex/openapi.json');
    expect(Object.keys(document.body.paths).filter((p) => p.includes('sandbox'))).toEqual([]);
  });
});

describe('developer sandbox without a model: templates and missing-field guidance', () => {
  let flex: EmbeddedFlex;
  let agents: ReferenceAgents;
  const templates = mkdtempSync(join(tmpdir(), 'flex-templates-'));
  const client = () => new FlexClient(flex.url, TOKEN);
  beforeAll(async () => {
    writeFileSync(join(templates, 'flex-retreat.json'), JSON.stringify(envelope));
    writeFileSync(join(templates, 'flex-broken.json'), '{ not json');
    writeFileSync(join(templates, 'other.json'), JSON.stringify(envelope));
    ({ flex, agents } = await startFlex({ FLEX_DEV_SANDBOX: 'true', FLEX_SANDBOX_TEMPLATE_DIR: templates }));
  }, 60_000);
  afterAll(async () => {
    await agents?.stop();
    await flex?.close();
    rmSync(templates, { recursive: true, force: true });
  });

  it('lists the facet catalog, the capabilities (active and all), and the templates (built-in and flex-*.json)', async () => {
    const { status, body } = await client().json('GET', `${SANDBOX}/metadata`);
    expect(status).toBe(200);
    expect(body.facets.map((f: any) => f.name)).toEqual(
      expect.arrayContaining(['writerBrief', 'copyVariants']),
    );
    const ids = body.capabilities.active.map((c: any) => c.registration.capabilityId);
    expect(ids).toEqual(
      expect.arrayContaining(['StrategyManagerAgent.briefing', 'ContentGeneratorAgent.linkedinVariants']),
    );
    expect(body.capabilities.all.length).toBeGreaterThanOrEqual(ids.length);
    expect(body.capabilityCatalog).toContain('ContentGeneratorAgent.linkedinVariants');
    expect(body.templates.map((t: any) => t.id)).toEqual([
      'linkedin-variants',
      'linkedin-with-approval',
      'linkedin-with-pause',
      'flex-retreat',
    ]);
    expect(body.skippedTemplates).toEqual([expect.stringMatching(/^flex-broken\.json: /)]);
    expect(body.model).toEqual({ configured: false });
  });

  it('lists its routes in the OpenAPI document', async () => {
    const document = await client().json('GET', '/api/v1/flex/openapi.json');
    expect(Object.keys(document.body.paths).filter((p) => p.includes('sandbox'))).toEqual([
      `${SANDBOX}/metadata`,
      `${SANDBOX}/envelope/conversation/start`,
      `${SANDBOX}/envelope/conversation/{id}/respond`,
    ]);
  });

  it('starts from the default template, answers prose with guidance, and applies JSON Patch typed in', async () => {
    const start = await client().json('POST', `${SANDBOX}/envelope/conversation/start`, {});
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({
      mode: 'guided',
      validation: { valid: true, issues: [] },
      missing: [],
    });
    expect(start.body.draft.objective).toMatch(/LinkedIn/);
    const id = start.body.conversationId;

    const emptied = { ...start.body.draft, objective: '', outputContract: undefined };
    const prose = await client().json('POST', `${SANDBOX}/envelope/conversation/${id}/respond`, {
      message: 'make it about our retreat',
      draft: JSON.parse(JSON.stringify(emptied)),
    });
    expect(prose.status).toBe(200);
    expect(prose.body.reply.message).toMatch(/No model is configured/);
    expect(prose.body.validation.valid).toBe(false);
    expect(prose.body.missing.map((m: any) => m.path)).toEqual(['objective', 'outputContract.schema']);

    const patch = [
      { op: 'replace', path: '/objective', value: envelope.objective },
      { op: 'add', path: '/outputContract', value: envelope.outputContract },
    ];
    const patched = await client().json('POST', `${SANDBOX}/envelope/conversation/${id}/respond`, {
      message: JSON.stringify(patch),
    });
    expect(patched.body).toMatchObject({ reply: { applied: true, patch }, validation: { valid: true } });
    expect(patched.body.draft.objective).toBe(envelope.objective);

    const bad = await client().json('POST', `${SANDBOX}/envelope/conversation/${id}/respond`, {
      message: JSON.stringify([{ op: 'remove', path: '/nowhere' }]),
    });
    expect(bad.body.reply).toMatchObject({ applied: false, error: expect.stringMatching(/operation 0/) });
    expect(bad.body.draft.objective).toBe(envelope.objective);
  });

  it('keeps a conversation to the one who started it, and refuses bad ids and bodies', async () => {
    const start = await client().json('POST', `${SANDBOX}/envelope/conversation/start`, {
      templateId: 'flex-retreat',
    });
    expect(start.body.draft).toEqual(envelope);
    const theirs = await new FlexClient(flex.url, OTHER).json(
      'POST',
      `${SANDBOX}/envelope/conversation/${start.body.conversationId}/respond`,
      { message: 'hello' },
    );
    expect(theirs).toMatchObject({ status: 404, body: { error: { code: 'conversation_not_found' } } });
    expect(
      (await client().json('POST', `${SANDBOX}/envelope/conversation/nope/respond`, { message: 'x' })).status,
    ).toBe(400);
    const unknown = await client().json('POST', `${SANDBOX}/envelope/conversation/start`, {
      templateId: 'nope',
    });
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'template_not_found' } } });
    const extra = await client().json('POST', `${SANDBOX}/envelope/conversation/start`, { surprise: 1 });
    expect(extra.status).toBe(400);
  });
});

describe('developer sandbox with a model (a local OpenAI-compatible server)', () => {
  let llm: OpenAiServer;
  let flex: EmbeddedFlex;
  let agents: ReferenceAgents;
  const client = () => new FlexClient(flex.url, TOKEN);
  const patch = [
    { op: 'add', path: '/objective', value: envelope.objective },
    { op: 'add', path: '/inputs', value: envelope.inputs },
    { op: 'add', path: '/outputContract', value: envelope.outputContract },
  ];
  beforeAll(async () => {
    llm = await startOpenAiServer();
    ({ flex, agents } = await startFlex({
      FLEX_DEV_SANDBOX: 'true',
      FLEX_LLM_BASE_URL: llm.baseUrl,
      FLEX_LLM_API_KEY: 'sk-local',
      FLEX_LLM_MODEL: 'local-builder',
    }));
  }, 60_000);
  afterAll(async () => {
    await agents?.stop();
    await flex?.close();
    await llm?.close();
  });

  it('applies the model’s JSON Patch to the draft and validates it again', async () => {
    llm.enqueue({ kind: 'json', content: { message: 'Here is a first draft.', patch } });
    const start = await client().json('POST', `${SANDBOX}/envelope/conversation/start`, {
      message: 'Two LinkedIn posts about our summer retreat',
    });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({
      mode: 'llm',
      reply: { message: 'Here is a first draft.', applied: true },
      validation: { valid: true },
      draft: envelope,
    });
    const request = llm.requests.at(-1)!;
    expect(request.headers.authorization).toBe('Bearer sk-local');
    expect(request.body).toMatchObject({
      model: 'local-builder',
      response_format: { json_schema: { name: 'flex_envelope_patch' } },
    });
    const [system, user] = request.body.messages;
    expect(system.content).toContain('ContentGeneratorAgent.linkedinVariants');
    expect(user.content).toContain('Two LinkedIn posts about our summer retreat');
    expect(user.content).toContain('missing objective');
    expect((await client().json('GET', `${SANDBOX}/metadata`)).body.model).toEqual({
      configured: true,
      name: 'local-builder',
    });
  });

  it('never shows the model a secret, and keeps the draft when the patch does not apply', async () => {
    llm.enqueue({ kind: 'json', content: { message: 'Done.', patch } });
    const start = await client().json('POST', `${SANDBOX}/envelope/conversation/start`, { message: 'start' });
    const draft = {
      ...start.body.draft,
      inputs: { ...envelope.inputs, apiKey: 'canary-sk-7731', note: { $sensitive: 'canary-2' } },
    };
    llm.enqueue({
      kind: 'json',
      content: { message: 'Removed it.', patch: [{ op: 'remove', path: '/nowhere' }] },
    });
    const turn = await client().json(
      'POST',
      `${SANDBOX}/envelope/conversation/${start.body.conversationId}/respond`,
      {
        message: 'add a call to action',
        draft,
      },
    );
    expect(turn.body.reply).toMatchObject({ applied: false, error: expect.stringMatching(/operation 0/) });
    expect(turn.body.draft).toEqual(draft);
    const prompt = JSON.stringify(llm.requests.at(-1)!.body.messages);
    expect(prompt).not.toContain('canary');
    expect(prompt).toContain('[secret]');
    expect(prompt).toContain('Done.'); // the conversation so far
  });

  it('falls back to guidance when the model fails, and says why', async () => {
    llm.enqueue({ kind: 'status', status: 500 });
    const start = await client().json('POST', `${SANDBOX}/envelope/conversation/start`, {
      templateId: 'linkedin-variants',
      message: 'make it three variants',
    });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({
      mode: 'guided',
      fallbackReason: 'the model answered HTTP 500',
      reply: { applied: false, message: expect.stringMatching(/The model gave no usable answer/) },
      validation: { valid: true },
    });
    llm.enqueue({ kind: 'text', content: 'not json at all' });
    const turn = await client().json(
      'POST',
      `${SANDBOX}/envelope/conversation/${start.body.conversationId}/respond`,
      {
        message: 'again',
      },
    );
    expect(turn.body.fallbackReason).toMatch(/not JSON/);
  });
});
