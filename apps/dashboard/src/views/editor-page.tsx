import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
// The README's sample envelope is the editor's first draft, bundled at build time.
// eslint-disable-next-line @nx/enforce-module-boundaries -- a data file, not a project
import sample from '../../../../examples/envelope.json';
import { ApiError } from '../api/api-error';
import type { FlexApi } from '../api/client';
import type { SandboxTemplate } from '../api/types';
import { checkEnvelope, type EnvelopeCheck } from '../envelope/check-envelope';
import { lineColumn, locate } from '../envelope/json-locations';
import { routeHref } from '../router';
import { ErrorNote } from './common';

const BUILT_IN: SandboxTemplate = {
  id: 'sample',
  name: 'LinkedIn post variants (examples/envelope.json)',
  description: 'The README’s sample run',
  source: 'built-in',
  envelope: sample as Record<string, unknown>,
};

/** The draft outlives a visit to another page, but not the tab: it may hold secrets, so it is never stored. */
let draft = JSON.stringify(sample, null, 2);

/** Hand a draft to the editor (the sandbox's builder does) before navigating to it. */
export function openInEditor(envelope: unknown): void {
  draft = JSON.stringify(envelope, null, 2);
  location.hash = routeHref({ page: 'new' });
}

/**
 * The envelope editor: the text is checked against the TaskEnvelope contract as it is typed (in the
 * browser, by the gateway's own normalizer); a valid one starts a run, and what the server still
 * refuses comes back with the JSON path of each problem.
 */
export function EditorPage({ api, sandbox }: { api: FlexApi; sandbox: boolean }) {
  const [text, setText] = useState(draft);
  const [check, setCheck] = useState<EnvelopeCheck>(() => checkEnvelope(draft));
  const [serverError, setServerError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const templates = useTemplates(api, sandbox);
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    draft = text;
    const timer = setTimeout(() => setCheck(checkEnvelope(text)), 120);
    return () => clearTimeout(timer);
  }, [text]);
  const jump = (path: string) => jumpTo(area.current, text, path);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (check.kind !== 'valid') return;
    setBusy(true);
    setServerError(undefined);
    try {
      const { runId } = await api.startRun(JSON.parse(text), idempotencyKey());
      location.hash = routeHref({ page: 'run', runId });
    } catch (e) {
      setServerError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="page editor" onSubmit={submit}>
      <div class="page-title">
        <h1>New run</h1>
        <TemplatePicker templates={templates} onPick={(t) => setText(JSON.stringify(t.envelope, null, 2))} />
      </div>
      <div class="editor-grid">
        <div>
          <label for="envelope">TaskEnvelope (JSON)</label>
          <textarea
            id="envelope"
            ref={area}
            class="mono code"
            rows={28}
            spellcheck={false}
            autoComplete="off"
            value={text}
            aria-invalid={check.kind === 'invalid' || check.kind === 'not_json'}
            aria-describedby="envelope-check"
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <div class="buttons">
            <button type="submit" disabled={busy || check.kind !== 'valid'}>
              {busy ? 'Starting…' : 'Start run'}
            </button>
            <button
              type="button"
              class="secondary"
              disabled={check.kind === 'not_json'}
              onClick={() => setText(format(text))}
            >
              Format
            </button>
          </div>
        </div>
        <aside aria-label="Checks">
          <CheckReport check={check} onJump={jump} />
          <ServerReport error={serverError} onJump={jump} />
        </aside>
      </div>
    </form>
  );
}

function CheckReport({ check, onJump }: { check: EnvelopeCheck; onJump: (path: string) => void }) {
  return (
    <div id="envelope-check" aria-live="polite">
      {check.kind === 'empty' && <p class="muted">Write an envelope, or pick a template.</p>}
      {check.kind === 'not_json' && <p class="error">Not JSON yet: {check.message}</p>}
      {check.kind === 'valid' && (
        <>
          <p class="ok">✓ A valid envelope.</p>
          {check.changes.length > 0 && (
            <ul class="small">
              {check.changes.map((c, i) => (
                <li key={i}>
                  <button type="button" class="link mono" onClick={() => onJump(c.path)}>
                    {c.path}
                  </button>
                  : {c.note}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      {check.kind === 'invalid' && (
        <>
          <p class="error">{check.issues.length === 1 ? '1 problem' : `${check.issues.length} problems`}:</p>
          <IssueList issues={check.issues} onJump={onJump} />
        </>
      )}
    </div>
  );
}

function ServerReport({ error, onJump }: { error: unknown; onJump: (path: string) => void }) {
  if (!error) return null;
  return (
    <div class="server-errors">
      <h2>The server refused it</h2>
      <ErrorNote error={error} />
      {error instanceof ApiError && <IssueList issues={error.issues} onJump={onJump} />}
    </div>
  );
}

function IssueList(props: {
  issues: Array<{ path: string; message: string; hint?: string }>;
  onJump: (p: string) => void;
}) {
  return (
    <ul class="issues">
      {props.issues.map((issue, i) => (
        <li key={i}>
          <button
            type="button"
            class="link mono"
            onClick={() => props.onJump(issue.path)}
            title="Show it in the editor"
          >
            {issue.path || '(envelope)'}
          </button>
          : {issue.message}
          {issue.hint && <div class="muted small">{issue.hint}</div>}
        </li>
      ))}
    </ul>
  );
}

function TemplatePicker({
  templates,
  onPick,
}: {
  templates: SandboxTemplate[];
  onPick: (t: SandboxTemplate) => void;
}) {
  const [chosen, setChosen] = useState(templates[0]?.id ?? '');
  return (
    <div class="inline-form">
      <label for="template">Template</label>
      <select id="template" value={chosen} onChange={(e) => setChosen(e.currentTarget.value)}>
        {templates.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
      <button
        type="button"
        class="secondary"
        onClick={() => {
          const t = templates.find((x) => x.id === chosen);
          if (t) onPick(t);
        }}
      >
        Use template
      </button>
    </div>
  );
}

/** The built-in sample, and the sandbox's templates when it is on. */
function useTemplates(api: FlexApi, sandbox: boolean): SandboxTemplate[] {
  const [more, setMore] = useState<SandboxTemplate[]>([]);
  useEffect(() => {
    if (sandbox)
      api.sandboxMetadata().then(
        (m) => setMore(m.templates),
        () => setMore([]),
      );
  }, [api, sandbox]);
  return useMemo(() => [BUILT_IN, ...more.filter((t) => t.id !== BUILT_IN.id)], [more]);
}

/** Focus the editor on the value at `path` (selected to the end of its line), a few lines below the top. */
function jumpTo(area: HTMLTextAreaElement | null, text: string, path: string): void {
  if (!area) return;
  const at = locate(text, path) ?? 0;
  const lineEnd = text.indexOf('\n', at);
  area.focus();
  area.setSelectionRange(at, lineEnd < 0 ? text.length : lineEnd);
  const { line } = lineColumn(text, at);
  area.scrollTop = Math.max(0, (line - 6) * parseFloat(getComputedStyle(area).lineHeight || '18'));
}

function format(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function idempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dash-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
