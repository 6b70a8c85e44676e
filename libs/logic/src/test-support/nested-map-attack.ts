/**
 * The attack of issue 12: `levels` nested `map`s, each over a literal array, the innermost body a
 * literal array too, every array as long as fits in `bytes` of JSON (358 in the issue). Three
 * levels evaluate millions of nodes; five allocate hundreds of millions of items.
 */
export function nestedMapAttack(levels: number, bytes = 358): Record<string, unknown> {
  let best = build(levels, 1);
  for (let n = 2; JSON.stringify(build(levels, n)).length <= bytes; n += 1) best = build(levels, n);
  return best;
}

function build(levels: number, n: number): Record<string, unknown> {
  const list = Array.from({ length: n }, (_, i) => i % 10);
  let body: unknown = list;
  for (let i = 0; i < levels; i += 1) body = { map: [list, body] };
  return body as Record<string, unknown>;
}
