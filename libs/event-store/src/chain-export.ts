import { canonicalJson } from '@flex/contracts';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ChainedEvent, ChainHead } from './chain';
import { verifyChain, type ChainVerdict } from './chain-verify';

/**
 * A run's export (docs/AUDIT.md): NDJSON, one {@link ChainedEvent} per line in version order, and a
 * last line `{"head": …}` saying where the chain ends, signed when the exporter had a key.
 */

/** HMAC-SHA256 over the canonical JSON of `{ hash, streamId, version }`, keyed by FLEX_CHAIN_SIGNING_KEY. */
export interface HeadSignature {
  alg: 'HMAC-SHA256';
  value: string;
}

export interface ExportedHead extends ChainHead {
  signature?: HeadSignature;
}

/** Whether the head's signature was checked, and what it said. */
export type SignatureCheck = 'valid' | 'invalid' | 'unsigned' | 'unchecked';

export interface ExportVerdict extends ChainVerdict {
  signature: SignatureCheck;
}

/** A line of an export that is not what the format says, by line number (1-based). */
export class ExportFormatError extends Error {
  override readonly name = 'ExportFormatError';
  readonly code = 'EXPORT_FORMAT';
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

export function signHead(head: ChainHead, key: string): ExportedHead {
  return { ...head, signature: { alg: 'HMAC-SHA256', value: mac(head, key) } };
}

/** The export's lines, each without its newline. */
export function exportLines(events: readonly ChainedEvent[], head: ExportedHead): string[] {
  return [...events.map((event) => JSON.stringify(event)), JSON.stringify({ head })];
}

/** An export's events and head; a line that is not JSON, or a missing head, is an ExportFormatError. */
export function parseExport(text: string): { events: ChainedEvent[]; head: ExportedHead } {
  const lines = text.split('\n');
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  const records = lines.map((line, i) => parseLine(line, i + 1));
  const last = records.pop();
  if (!last || !isHead(last)) throw new ExportFormatError(lines.length, 'the last line must be {"head": …}');
  const events = records.map((record, i) => asEvent(record, i + 1));
  return { events, head: last.head };
}

/** The export checked offline: its chain against its head, and the head's signature when a key is given. */
export function verifyExport(text: string, key?: string): ExportVerdict {
  const { events, head } = parseExport(text);
  const { signature: _, ...chainHead } = head;
  return { ...verifyChain(events, chainHead), signature: checkHeadSignature(head, key) };
}

/** Whether the head's signature holds under `key`: `unchecked` without a key, `unsigned` without one. */
export function checkHeadSignature(head: ExportedHead, key?: string): SignatureCheck {
  if (!head.signature) return 'unsigned';
  if (key === undefined) return 'unchecked';
  const expected = Buffer.from(mac(head, key), 'hex');
  const given = Buffer.from(String(head.signature.value), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'valid' : 'invalid';
}

function mac({ hash, streamId, version }: ChainHead, key: string): string {
  return createHmac('sha256', key).update(canonicalJson({ hash, streamId, version })).digest('hex');
}

function parseLine(line: string, number: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new ExportFormatError(number, `not JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ExportFormatError(number, 'expected a JSON object');
  return value as Record<string, unknown>;
}

function isHead(record: Record<string, unknown>): record is { head: ExportedHead } {
  const head = record.head as Partial<ChainHead> | undefined;
  return (
    typeof head === 'object' &&
    head !== null &&
    typeof head.streamId === 'string' &&
    typeof head.hash === 'string' &&
    Number.isSafeInteger(head.version)
  );
}

const FIELDS: ReadonlyArray<[keyof ChainedEvent, (v: unknown) => boolean, string]> = [
  ['position', Number.isSafeInteger, 'an integer'],
  ['id', (v) => typeof v === 'string', 'a string'],
  ['streamId', (v) => typeof v === 'string', 'a string'],
  ['version', Number.isSafeInteger, 'an integer'],
  ['type', (v) => typeof v === 'string', 'a string'],
  ['payload', (v) => v !== undefined, 'present'],
  ['metadata', (v) => v !== undefined, 'present'],
  ['timestamp', (v) => typeof v === 'string', 'a string'],
  ['prev', (v) => v === null || typeof v === 'string', 'a string or null'],
  ['hash', (v) => v === null || typeof v === 'string', 'a string or null'],
];

function asEvent(record: Record<string, unknown>, line: number): ChainedEvent {
  if ('head' in record) throw new ExportFormatError(line, 'a head before the last line');
  for (const [field, ok, what] of FIELDS)
    if (!ok(record[field])) throw new ExportFormatError(line, `${field} must be ${what}`);
  return record as unknown as ChainedEvent;
}
