import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError } from '../api/api-error';
import { statusLabel } from '../format';

/** A status in words and colour (the words carry it; the colour only helps). */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge status-${status}`}>{statusLabel(status)}</span>;
}

/** An error the API answered with, or any other failure, in words. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  if (error instanceof ApiError)
    return (
      <p class="error" role="alert">
        <strong>{error.code}</strong> (HTTP {error.status}): {error.message}
        {error.status === 403 ? ' — this token’s role may not do that.' : ''}
        {error.status === 401
          ? ' — the API no longer knows this token: “Forget token” and sign in again.'
          : ''}
      </p>
    );
  return (
    <p class="error" role="alert">
      {(error as Error)?.message ?? String(error)}
    </p>
  );
}

const SHOWN_CHARACTERS = 4_000;

/** A JSON value, pretty-printed; a long one shows its start until asked for all of it. */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  const [all, setAll] = useState(false);
  if (value === undefined) return <p class="muted">none</p>;
  const text = JSON.stringify(value, null, 2) ?? String(value);
  const long = text.length > SHOWN_CHARACTERS;
  return (
    <div class="json">
      <pre tabIndex={0} aria-label={label ?? 'JSON'}>
        {long && !all ? `${text.slice(0, SHOWN_CHARACTERS)}\n…` : text}
      </pre>
      {long && (
        <button type="button" class="link" onClick={() => setAll(!all)}>
          {all ? 'Show less' : `Show all ${text.length.toLocaleString()} characters`}
        </button>
      )}
    </div>
  );
}

/** A titled panel of a page. */
export function Panel(props: {
  title: string;
  id: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <section class="panel" aria-labelledby={`${props.id}-title`}>
      <header class="panel-header">
        <h2 id={`${props.id}-title`}>{props.title}</h2>
        {props.actions}
      </header>
      {props.children}
    </section>
  );
}
