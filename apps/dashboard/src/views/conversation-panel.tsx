import { useState } from 'preact/hooks';
import type { FlexApi } from '../api/client';
import type { ConversationTurn, SandboxMetadata } from '../api/types';
import { routeHref } from '../router';
import { ErrorNote, JsonView, Panel } from './common';
import { openInEditor } from './editor-page';

interface Line {
  who: 'you' | 'builder';
  text: string;
  patch?: ConversationTurn['reply'];
}

/**
 * The guided conversational builder: describe the run, and the model answers with JSON Patch
 * operations the server applies to the draft and re-validates. Without a model the builder starts
 * from a template and says which fields are missing or wrong; JSON Patch typed in still applies.
 */
export function ConversationPanel({ api, metadata }: { api: FlexApi; metadata: SandboxMetadata }) {
  const [turn, setTurn] = useState<ConversationTurn>();
  const [lines, setLines] = useState<Line[]>([]);
  const [message, setMessage] = useState('');
  const [templateId, setTemplateId] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const send = async (event: Event) => {
    event.preventDefault();
    const text = message.trim();
    if (turn && !text) return;
    setBusy(true);
    setError(undefined);
    try {
      const next = turn
        ? await api.respond(turn.conversationId, { message: text, draft: turn.draft })
        : await api.startConversation({ templateId: templateId || undefined, message: text || undefined });
      setLines([
        ...lines,
        ...(text ? [{ who: 'you' as const, text }] : []),
        { who: 'builder', text: next.reply.message, patch: next.reply },
      ]);
      setTurn(next);
      setMessage('');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const start = async () => {
    if (!turn || !turn.validation.valid) return;
    setBusy(true);
    try {
      const { runId } = await api.startRun(turn.draft, `sandbox-${turn.conversationId}-${lines.length}`);
      location.hash = routeHref({ page: 'inspect', runId });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const model = metadata.model.configured
    ? `model ${metadata.model.name ?? ''}`
    : 'no model configured: templates and guidance';
  return (
    <Panel title="Conversational builder" id="builder" actions={<span class="muted small">{model}</span>}>
      <div class="builder">
        <div>
          <ol class="chat" aria-live="polite" aria-label="Conversation">
            {lines.map((l, i) => (
              <li key={i} class={`chat-${l.who}`}>
                <strong>{l.who === 'you' ? 'You' : 'Builder'}:</strong> {l.text}
                {l.patch && l.patch.patch.length > 0 && (
                  <details>
                    <summary>
                      {l.patch.patch.length} patch operation(s)
                      {l.patch.applied ? ', applied' : ', not applied'}
                    </summary>
                    <JsonView value={l.patch.patch} label="Patch" />
                  </details>
                )}
                {l.patch?.error && <p class="error small">{l.patch.error}</p>}
              </li>
            ))}
          </ol>
          <form class="chat-form" onSubmit={send}>
            {!turn && (
              <>
                <label for="builder-template">Start from</label>
                <select
                  id="builder-template"
                  value={templateId}
                  onChange={(e) => setTemplateId(e.currentTarget.value)}
                >
                  <option value="">
                    {metadata.model.configured ? 'nothing: describe it' : 'the default template'}
                  </option>
                  {metadata.templates.map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.name}
                    </option>
                  ))}
                </select>
              </>
            )}
            <label for="builder-message">{turn ? 'Your answer' : 'What should the run do?'}</label>
            <textarea
              id="builder-message"
              rows={3}
              value={message}
              onInput={(e) => setMessage(e.currentTarget.value)}
            />
            <button type="submit" disabled={busy}>
              {turn ? 'Send' : 'Start building'}
            </button>
          </form>
          <ErrorNote error={error} />
        </div>
        {turn && <Draft turn={turn} busy={busy} onStart={() => void start()} />}
      </div>
    </Panel>
  );
}

function Draft({ turn, busy, onStart }: { turn: ConversationTurn; busy: boolean; onStart: () => void }) {
  return (
    <div class="draft">
      <h3>Draft envelope</h3>
      <p aria-live="polite" class={turn.validation.valid ? 'ok' : 'error'}>
        {turn.validation.valid ? '✓ valid' : `${turn.validation.issues.length} problem(s)`}
        {turn.fallbackReason ? ` · ${turn.fallbackReason}` : ''}
      </p>
      {turn.missing.length > 0 && (
        <ul class="issues" aria-label="Still missing">
          {turn.missing.map((m) => (
            <li key={m.path}>
              <code>{m.path}</code>: {m.message}
            </li>
          ))}
        </ul>
      )}
      {!turn.validation.valid && (
        <ul class="issues" aria-label="Problems">
          {turn.validation.issues.map((i, n) => (
            <li key={n}>
              <code>{i.path || '(envelope)'}</code>: {i.message}
            </li>
          ))}
        </ul>
      )}
      <JsonView value={turn.draft} label="Draft envelope" />
      <div class="buttons">
        <button type="button" class="secondary" onClick={() => openInEditor(turn.draft)}>
          Open in the editor
        </button>
        <button type="button" disabled={busy || !turn.validation.valid} onClick={onStart}>
          Start run and inspect its plan
        </button>
      </div>
    </div>
  );
}
