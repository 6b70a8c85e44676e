import type { WriterBrief } from './facet-values';
import { clause } from './text';

/** A writer brief's key points, sorted into what a copywriter uses. */
export interface BriefFacts {
  company?: string;
  coreValue?: string;
  objective?: string;
  /** What the objective promotes, when it is phrased as a copy request ("Create posts promoting X" → "X"). */
  subject?: string;
  /** Things every variant may bring out ("Highlight: …"). */
  highlights: string[];
  /** Sentences of fact that can back a variant, in brief order. */
  support: string[];
}

const LABELLED = /^([^:]{1,40}):\s*(.+)$/;

/** Reads key points written as "Label: value" (the strategist's format); unlabelled points are plain support. */
export function readBrief(brief: WriterBrief): BriefFacts {
  const out: BriefFacts = { highlights: [], support: [] };
  for (const point of brief.keyPoints) {
    const m = LABELLED.exec(point.trim());
    if (!m) {
      out.support.push(clause(point));
      continue;
    }
    const label = m[1].trim().toLowerCase();
    const value = clause(m[2]);
    if (label === 'company') out.company = value;
    else if (label === 'core value') out.coreValue = value;
    else if (label === 'objective') {
      out.objective = value;
      out.subject = subjectOf(value);
    } else if (label === 'success criterion') continue;
    else if (label === 'highlight') {
      out.highlights.push(value);
      out.support.push(`worth a closer look: ${value}`);
    } else out.support.push(`${m[1].trim()}: ${value}`);
  }
  return out;
}

const COPY_REQUEST =
  /^(?:generate|create|write|draft|produce|prepare|make)\s+(?:\w+\s+){0,3}?(?:posts?|variants?|copy|content|updates?|announcements?)\s+(?:promoting|about|announcing|for|on|celebrating|introducing|highlighting)\s+(.+)$/i;

function subjectOf(objective: string): string | undefined {
  const m = COPY_REQUEST.exec(objective);
  return m ? clause(m[1]) : undefined;
}
