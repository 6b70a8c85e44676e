import { START_CHECKPOINT } from '@flex/event-store';
import { loadConfig } from '@flex/runtime';
import { FlexClient, waitFor } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';

const TOKEN = 'hostile-client-token:client';

/** A nested object schema `levels` deep. */
const deepSchema = (levels: number): Record<string, unknown> =>
  levels === 0 ? { type: 'string' } : { type: 'object', properties: { x: deepSchema(levels - 1) } };
const deepRule = (levels: number): Record<string, unknown> =>
  levels === 0 ? { var: 'copyVariants' } : { '!': [deepRule(levels - 1)] };

/** Issue 12's attack: `levels` nested `map`s over literal digit arrays, 358 bytes of JSON at most. */
function nestedMaps(levels: number): unknown {
  const build = (n: number) => {
    const list = Array.from({ length: n }, (_, i) => i % 10);
    let rule: unknown = list;
    for (let i = 0; i < levels; i += 1) rule = { map: [list, rule] };
    return rule;
  };
  let n = 1;
  while (JSON.stringify(build(n + 1)).length <= 358) n += 1;
  return build(n);
}

const base = () => ({
  objective: 'Write two LinkedIn variants',
  inputs: { channel: 'linkedin' },
  outputContract: {
    schema: { type: 'object', properties: { copyVariants: { type: 'array' } } } as Record<string, unknown>,
    constraints: [] as unknown[],
  },
});
const withSchema = (property: Record<string, unknown>) => {
  const envelope = base();
  envelope.outputContract.schema = {
    type: 'object',
    properties: { copyVariants: { type: 'array' }, extra: property },
  };
  return envelope;
};
const withRule = (expr: unknown) => {
  const envelope = base();
  envelope.outputContract.constraints = [{ constraintId: 'c1', level: 'hard', expr }];
  return envelope;
};

// Each hostile contract: the envelope, the path the 400 must name and the reason it must give.
const CASES: Array<[string, unknown, string, RegExp]> = [
  [
    'a schema too big',
    withSchema({ type: 'string', description: 'x'.repeat(70 * 1024) }),
    'outputContract.schema',
    /too large|bytes|size|exceed/i,
  ],
  [
    'a schema too deep for the envelope',
    withSchema(deepSchema(40)),
    'outputContract.schema',
    /nests deeper than 64/,
  ],
  [
    'a schema too deep for the validator',
    withSchema(deepSchema(17)),
    'outputContract.schema',
    /deep|depth|nest/i,
  ],
  [
    'a catastrophic pattern (nested quantifier)',
    withSchema({ type: 'string', pattern: '^(a+)+$' }),
    'outputContract.schema.properties.extra.pattern',
    /catastrophic backtracking/,
  ],
  [
    'a catastrophic pattern (repeated alternation)',
    withSchema({ type: 'string', pattern: '^(a|a)*b$' }),
    'outputContract.schema.properties.extra.pattern',
    /catastrophic backtracking/,
  ],
  [
    '$data',
    withSchema({ type: 'number', maximum: { $data: '1/limit' } }),
    'outputContract.schema.properties.extra',
    /\$data/,
  ],
  [
    'a remote $ref',
    withSchema({ $ref: 'https://evil.example/schema.json' }),
    'outputContract.schema.properties.extra.$ref',
    /ref|remote/i,
  ],
  [
    'JSONLogic method',
    withRule({ method: [{ var: 'copyVariants' }, 'toString'] }),
    'outputContract.constraints[0].expr',
    /method/,
  ],
  [
    'an unknown operator',
    withRule({ eval: ['process.exit()'] }),
    'outputContract.constraints[0].expr',
    /eval|operator/i,
  ],
  ['a deep rule', withRule(deepRule(40)), 'outputContract.constraints[0].expr', /deep|depth|nest/i],
  [
    'nested maps over literal arrays (3 levels, 358 bytes)',
    withRule(nestedMaps(3)),
    'outputContract.constraints[0].expr',
    /jsonlogic_too_costly.*evaluation budget of 100000 operations/,
  ],
  [
    'nested maps over literal arrays (5 levels, 358 bytes)',
    withRule(nestedMaps(5)),
    'outputContract.constraints[0].expr.map[1].map[1].map[1].map',
    /jsonlogic_iteration_too_deep.*at most 3 may nest/,
  ],
  [
    'var of constructor',
    withRule({ '==': [{ var: 'constructor' }, 1] }),
    'outputContract.constraints[0].expr',
    /constructor/,
  ],
  [
    'var of __proto__',
    withRule({ '==': [{ var: 'copyVariants.__proto__.x' }, 1] }),
    'outputContract.constraints[0].expr',
    /__proto__/,
  ],
];

/** Client schemas and rules are untrusted (issue 3 §5): each hostile contract is a 400 naming path and reason, and stores nothing. */
describe('hostile contracts through the gateway (embedded, in process)', () => {
  let flex: EmbeddedFlex;
  let client: FlexClient;

  beforeAll(async () => {
    flex = await startEmbedded({
      config: loadConfig({ FLEX_API_TOKENS: TOKEN, FLEX_LOG_LEVEL: 'silent', PORT: '0' }),
      dataDir: null,
      agents: false,
    });
    client = new FlexClient(flex.url, TOKEN.split(':')[0]);
  }, 60_000);

  afterAll(async () => {
    await flex?.close();
  });

  const storedEvents = async () => (await flex.runtime.store.readAll(START_CHECKPOINT, 1_000)).events.length;

  it.each(CASES)(
    'refuses %s with a 400 naming the path and the reason, and stores nothing',
    async (_name, envelope, path, reason) => {
      const before = await storedEvents();
      const res = await client.runStream(envelope);
      expect(res.status).toBe(400);
      expect(['invalid_envelope', 'invalid_output_contract']).toContain(res.body.error.code);
      const text = JSON.stringify(res.body.error);
      expect(text).toContain(path);
      expect(text).toMatch(reason);
      expect(await storedEvents()).toBe(before);
    },
  );

  it('accepts the same contract without the hostile part (the test can fail)', async () => {
    const before = await storedEvents();
    const abort = new AbortController();
    const res = await fetch(`${flex.url}/api/v1/flex/run.stream`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${TOKEN.split(':')[0]}`,
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
      },
      body: JSON.stringify(withRule({ '>=': [{ var: 'copyVariants.length' }, 1] })),
      signal: abort.signal,
    });
    // Without agents the run cannot finish: the gateway taking it is what matters here.
    expect(res.status).toBe(200);
    abort.abort();
    await waitFor(async () => (await storedEvents()) > before, 10_000);
  }, 30_000);
});
