import { formatIssuePath } from '../shared/issue-path';
import type { NormalizationChange, ValidationIssue } from './validation-issue';

/**
 * What the normalizer's passes accumulate. An issue raised by a pass also claims a `scope`:
 * schema issues at or under that path are dropped, so one mistake is reported once, with its hint.
 */
export class NormalizeContext {
  readonly changes: NormalizationChange[] = [];
  readonly issues: ValidationIssue[] = [];
  private readonly scopes: string[] = [];

  change(path: PropertyKey[], note: string, details: { from?: unknown; to?: PropertyKey[] } = {}): void {
    const change: NormalizationChange = { path: formatIssuePath(path), note };
    if ('from' in details) change.from = details.from;
    if (details.to) change.to = formatIssuePath(details.to);
    this.changes.push(change);
  }

  reject(
    path: PropertyKey[],
    code: string,
    message: string,
    hint?: string,
    scope: PropertyKey[] = path,
  ): void {
    this.issues.push({ path: formatIssuePath(path), code, message, ...(hint ? { hint } : {}) });
    this.scopes.push(formatIssuePath(scope));
  }

  /**
   * The issue at the path the caller sent: a legacy field a pass moved (a policy-level `condition`
   * into its trigger, `trigger.nodeId` into the selector) is checked where it was moved to, and an
   * issue under that place is named where the caller wrote it.
   */
  asSent(issue: ValidationIssue): ValidationIssue {
    for (const change of this.changes) {
      const to = change.to;
      if (to === undefined || to === change.path || !issue.path.startsWith(to)) continue;
      const rest = issue.path.slice(to.length);
      if (rest === '' || rest.startsWith('.') || rest.startsWith('['))
        return { ...issue, path: change.path + rest };
    }
    return issue;
  }

  /** True when an issue at `path` is already explained by a pass's issue. */
  covers(path: string): boolean {
    return this.scopes.some((scope) => {
      if (scope === '' || path === scope) return true;
      const next = path.charAt(scope.length);
      return path.startsWith(scope) && (next === '.' || next === '[');
    });
  }
}
