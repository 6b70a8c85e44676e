import { useState } from 'preact/hooks';
import { FlexApi } from '../api/client';
import { ApiError } from '../api/api-error';
import { ErrorNote } from './common';

/** Asks for the API token; a token the API refuses (401) is not kept. */
export function TokenForm({ onToken }: { onToken: (token: string) => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const token = value.trim();
    if (!token) return;
    setBusy(true);
    setError(undefined);
    try {
      await new FlexApi(token).capabilities();
      onToken(token);
    } catch (e) {
      // Only a 401 says the token is unknown; a role that may not list capabilities (403), or a
      // registry that did not answer (503), still leaves a token the API knows.
      if (e instanceof ApiError && e.status !== 401) onToken(token);
      else setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="token-form panel" onSubmit={submit}>
      <h1>Sign in with an API token</h1>
      <p>
        <code>npm start</code> prints one and keeps it in <code>.flex/api-token</code>; or use one of{' '}
        <code>FLEX_API_TOKENS</code>. It stays in this browser tab (sessionStorage) and goes only to this
        server, in the <code>Authorization</code> header.
      </p>
      <label for="token">API token</label>
      <input
        id="token"
        type="password"
        autoComplete="off"
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
        required
      />
      <button type="submit" disabled={busy}>
        {busy ? 'Checking…' : 'Use token'}
      </button>
      <ErrorNote error={error} />
    </form>
  );
}
