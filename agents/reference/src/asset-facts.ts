import { isSecretRef } from '@flex/contracts';
import { clause, humanizeKey, sentences, truncate } from './text';

/** A fact found in an asset: a label and a value, both short texts. */
export interface Fact {
  label: string;
  value: string;
}

/** The facts a strategist can build on, pulled out of an assetBundle. */
export interface AssetFacts {
  company?: string;
  coreValue?: string;
  recentEvent?: string;
  /** Every other fact, in the order found. */
  facts: Fact[];
  /** Titles or URLs of linked material. */
  sources: string[];
}

interface Asset {
  type: string;
  payload: Record<string, unknown>;
}

const COMPANY = /^(?:company|company[_ ]?name|brand|brand[_ ]?name|organi[sz]ation|name)$/i;
const CORE_VALUE =
  /^(?:core[_ ]?values?|values?|mission|positioning|tagline|value[_ ]?prop(?:osition)?|purpose)$/i;
const RECENT_EVENT =
  /^(?:recent[_ ]?(?:event|news|milestone)|event|news|announcement|launch|milestone|latest[_ ]?news)$/i;
// Keys that name facets, knobs or plumbing rather than facts about the subject.
const SKIP =
  /^(?:kind|type|id|url|href|image|logo|source|tone|tone[_ ]?of[_ ]?voice|variant[_ ]?count|channel|goal|format|language|locale|persona|audience(?:[_ ]?profile)?|objective(?:[_ ]?brief)?|plan[_ ]?knobs|qa[_ ]?rubric|writer[_ ]?brief|copy[_ ]?variants|asset[_ ]?bundle|assets|context[_ ]?bundles)$/i;
const IDENTIFIER = /^[a-z0-9]+(?:_[a-z0-9]+)+$/;

/**
 * Pulls facts out of assets: structured `data` payloads (a company profile, a product sheet,
 * nested one level as `{ company_profile: {...} }` too), the first sentences of documents and
 * texts, and the titles of links. Only string (or string list) fields become facts.
 */
export function extractFacts(assets: readonly Asset[] = []): AssetFacts {
  const out: AssetFacts = { facts: [], sources: [] };
  for (const asset of assets) {
    switch (asset.type) {
      case 'data':
        collect(asset.payload, out, 0);
        break;
      case 'document':
      case 'text':
        readProse(asset.payload, out);
        break;
      case 'link':
        out.sources.push(String(asset.payload.title ?? asset.payload.url));
        break;
      case 'image':
        if (typeof asset.payload.altText === 'string')
          out.facts.push({ label: 'image', value: clause(asset.payload.altText) });
        break;
    }
  }
  return out;
}

function collect(payload: Record<string, unknown>, out: AssetFacts, depth: number): void {
  for (const [key, raw] of Object.entries(payload)) {
    // A secret's reference (`{"$secret": "s1"}`) is no fact about the subject: the value is not here.
    if (SKIP.test(key) || isSecretRef(raw)) continue;
    if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
      if (depth < 2) collect(raw as Record<string, unknown>, out, depth + 1);
      continue;
    }
    const value = asText(raw);
    if (!value) continue;
    if (COMPANY.test(key) && !out.company) out.company = value;
    else if (CORE_VALUE.test(key) && !out.coreValue) out.coreValue = value;
    else if (RECENT_EVENT.test(key) && !out.recentEvent) out.recentEvent = value;
    else out.facts.push({ label: humanizeKey(key), value });
  }
}

function readProse(payload: Record<string, unknown>, out: AssetFacts): void {
  const title = typeof payload.title === 'string' ? clause(payload.title) : undefined;
  if (title) out.sources.push(title);
  const content = typeof payload.content === 'string' ? payload.content : '';
  const lead = sentences(content).slice(0, 2);
  if (lead.length > 0)
    out.facts.push({ label: title ?? 'source', value: truncate(clause(lead.join(' ')), 300) });
}

/** Facts from `primary` win; `secondary` fills the gaps and adds the facts not already known. */
export function mergeFacts(primary: AssetFacts, secondary: AssetFacts): AssetFacts {
  const merged: AssetFacts = {
    company: primary.company ?? secondary.company,
    coreValue: primary.coreValue ?? secondary.coreValue,
    recentEvent: primary.recentEvent ?? secondary.recentEvent,
    facts: [...primary.facts],
    sources: [...new Set([...primary.sources, ...secondary.sources])],
  };
  const known = new Set(
    [merged.company, merged.coreValue, merged.recentEvent, ...merged.facts.map((f) => f.value)]
      .filter(Boolean)
      .map((v) => String(v).toLowerCase()),
  );
  merged.facts.push(...secondary.facts.filter((f) => !known.has(f.value.toLowerCase())));
  return merged;
}

function asText(raw: unknown): string | undefined {
  if (typeof raw === 'string') return IDENTIFIER.test(raw.trim()) ? undefined : clause(raw) || undefined;
  if (typeof raw === 'number') return String(raw);
  if (Array.isArray(raw)) {
    const items = raw
      .filter((x): x is string => typeof x === 'string')
      .map(clause)
      .filter(Boolean);
    return items.length > 0 ? items.join(', ') : undefined;
  }
  return undefined;
}
