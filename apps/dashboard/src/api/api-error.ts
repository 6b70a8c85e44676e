/** A refusal of the API: its status and the `{ error: { code, message, details } }` it answered with. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = {},
  ) {
    super(message);
  }

  /** The issues a 400 names, each with the JSON path of what is wrong (empty when it names none). */
  get issues(): Array<{ path: string; message: string; hint?: string }> {
    const issues = (this.details as { issues?: unknown } | null)?.issues;
    if (!Array.isArray(issues)) return [];
    return issues.filter(isIssue).map((i) => ({ path: i.path, message: i.message, hint: i.hint }));
  }
}

function isIssue(value: unknown): value is { path: string; message: string; hint?: string } {
  const v = value as { path?: unknown; message?: unknown } | null;
  return typeof v?.path === 'string' && typeof v.message === 'string';
}

/** The ApiError of a non-2xx answer: the API's JSON error when there is one, else the status. */
export async function apiErrorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
    const e = body.error;
    if (e && typeof e.code === 'string' && typeof e.message === 'string')
      return new ApiError(response.status, e.code, e.message, e.details);
  } catch {
    // not JSON: fall through
  }
  return new ApiError(response.status, `http_${response.status}`, `HTTP ${response.status}`);
}
