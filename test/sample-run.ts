import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from '@flex/testing';

export const sampleEnvelope = () =>
  JSON.parse(readFileSync(join(__dirname, '../examples/envelope.json'), 'utf8'));

/**
 * The foundation's done-when, asserted on a real stream: start → plan_requested → plan_generated →
 * node_start/node_complete per node → complete, with two distinct variants that satisfy the schema.
 */
export function expectSampleRunCompleted(frames: Frame[]): { runId: string; output: any } {
  const types = frames.map((f) => f.type);
  expect(types.slice(0, 3)).toEqual(['start', 'plan_requested', 'plan_generated']);
  expect(types[types.length - 1]).toBe('complete');
  expect(types.filter((t) => t === 'complete' || t === 'run_failed')).toHaveLength(1);
  const plan = frames[2].payload;
  const agentNodes = plan.plan.nodes.filter((n: any) => n.kind !== 'fallback');
  for (const node of agentNodes) {
    const started = frames.findIndex((f) => f.type === 'node_start' && f.nodeId === node.id);
    const completed = frames.findIndex((f) => f.type === 'node_complete' && f.nodeId === node.id);
    expect(started).toBeGreaterThan(2);
    expect(completed).toBeGreaterThan(started);
  }
  const runId = frames[0].runId;
  for (const f of frames) {
    expect(f).toMatchObject({ runId, correlationId: frames[0].correlationId });
    expect(typeof f.id).toBe('string');
    expect(Number.isInteger(f.position)).toBe(true);
  }
  for (let i = 1; i < frames.length; i++) expect(frames[i].position).toBeGreaterThan(frames[i - 1].position);
  const output = frames[frames.length - 1].payload.output;
  expect(output.copyVariants).toHaveLength(2);
  for (const v of output.copyVariants) {
    for (const k of ['headline', 'body', 'callToAction']) expect(typeof v[k]).toBe('string');
    expect(v.body.length).toBeGreaterThan(20);
  }
  const [a, b] = output.copyVariants;
  expect(a.headline).not.toBe(b.headline);
  expect(a.body).not.toBe(b.body);
  expect(`${a.headline} ${a.body}`).toMatch(/cultur|team/i);
  expect(`${b.headline} ${b.body}`).toMatch(/career|growth/i);
  expect(JSON.stringify(output)).toContain('AwesomePoster');
  return { runId, output };
}
