import type { OutputIssue } from '@flex/run-model';

/** Usage as the agent reported it, kept only when well-formed (it feeds `tokens` / `costCents`). */
export function usageOf(value: unknown): { tokens?: number; costCents?: number; model?: string } | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const u = value as Record<string, unknown>;
  const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : undefined);
  const usage = {
    tokens: n(u.tokens),
    costCents: n(u.costCents),
    model: typeof u.model === 'string' && u.model.length >= 1 && u.model.length <= 200 ? u.model : undefined,
  };
  const kept = Object.fromEntries(Object.entries(usage).filter(([, v]) => v !== undefined));
  return Object.keys(kept).length ? kept : undefined;
}

/** Facet issues an agent SDK error carries in `details.errors` (`{facet, pointer, keyword, message}`). */
export function facetIssuesOf(details: unknown): OutputIssue[] | undefined {
  const errors = (details as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  return errors.slice(0, 50).map((raw) => {
    const e = (raw ?? {}) as Record<string, unknown>;
    const str = (x: unknown, max: number) => (typeof x === 'string' ? x.slice(0, max) : undefined);
    return JSON.parse(
      JSON.stringify({
        path: str(e.pointer, 1000) ?? str(e.path, 1000) ?? '/',
        keyword: str(e.keyword, 200),
        message: str(e.message, 2000) || 'invalid',
        facet: str(e.facet, 200),
      }),
    );
  });
}
