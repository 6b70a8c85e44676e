/**
 * The API token lives in this tab's sessionStorage only: never in the URL (it would end up in
 * history, logs and Referer headers), never in localStorage (it would outlive the session).
 */
const KEY = 'flex.apiToken';

export function loadToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
