/** How long ago `iso` was, at `now` (ms): `4 s`, `3 min`, `2 h`, `5 d`. */
export function age(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (!Number.isFinite(seconds)) return '—';
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}

/** A timestamp as the page shows it: local date and time to the second. */
export function when(iso: string | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { hour12: false });
}

/** A score in [0, 1] as a percentage; `—` when there is none. */
export function percent(score: number | null | undefined): string {
  return typeof score === 'number' ? `${Math.round(score * 100)}%` : '—';
}

/** The words of a status (`awaiting_hitl` → `awaiting HITL`). */
export function statusLabel(status: string): string {
  return status === 'awaiting_hitl' ? 'awaiting HITL' : status.replace(/_/g, ' ');
}
