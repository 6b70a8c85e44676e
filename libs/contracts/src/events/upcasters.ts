/**
 * Stored events written before a payload changed shape, read in today's shape (STYLE: a changed
 * meaning gets an upcaster, never a silent edit). Applied where events leave the store, so every
 * reader folds one shape. An upcaster only moves what was recorded; it never invents a fact.
 */

type Payload = Record<string, unknown>;
const isObject = (v: unknown): v is Payload => v !== null && typeof v === 'object' && !Array.isArray(v);

const BUNDLE_FIELDS = ['status', 'satisfactionScore', 'failures', 'warnings', 'infos'] as const;

/**
 * `plan_generated` and `plan_updated` before the one bundle shape (November 2026) carried the
 * validator's findings at the top of the payload; they now sit under `diagnostics`.
 */
function bundleAtTop(payload: Payload): Payload {
  if ('diagnostics' in payload || !('status' in payload || 'satisfactionScore' in payload)) return payload;
  const rest: Payload = {};
  const diagnostics: Payload = {
    status: 'accepted',
    satisfactionScore: 1,
    failures: [],
    warnings: [],
    infos: [],
  };
  for (const [key, value] of Object.entries(payload)) {
    if ((BUNDLE_FIELDS as readonly string[]).includes(key)) diagnostics[key] = value;
    else rest[key] = value;
  }
  return { ...rest, diagnostics };
}

/**
 * `policy_triggered` before December 2026 carried the action requested as `action`; the spec's
 * name for it is `actionDetails` (003 §10.0.1). The value is the same canonical Action.
 */
function actionDetailsNamed(payload: Payload): Payload {
  if (!('action' in payload) || 'actionDetails' in payload) return payload;
  const { action, ...rest } = payload;
  return { ...rest, actionDetails: action };
}

const UPCASTERS: Readonly<Partial<Record<string, (payload: Payload) => Payload>>> = {
  plan_generated: bundleAtTop,
  plan_updated: bundleAtTop,
  policy_triggered: actionDetailsNamed,
};

/** The payload of a stored event of `type` in the shape its schema has today. */
export function upcastPayload(type: string, payload: unknown): unknown {
  const upcast = UPCASTERS[type];
  return upcast && isObject(payload) ? upcast(payload) : payload;
}
