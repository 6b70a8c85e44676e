import { MalformedMessageError, toWireError, type WireError } from './errors';
import type { IncomingRequest } from './types';

/** Marks an error reply; its body is the WireError. Any other reply's body is the handler's value. */
export const ERROR_HEADER = 'Flex-Error';

export type Reply = { ok: true; value: unknown } | { ok: false; error: WireError };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** JSON on the wire; `undefined` travels as an empty body. */
export function toJsonBytes(value: unknown): Uint8Array {
  return value === undefined ? new Uint8Array(0) : encoder.encode(JSON.stringify(value));
}

export function fromJsonBytes(subject: string, bytes: Uint8Array): unknown {
  try {
    return bytes.length === 0 ? undefined : JSON.parse(decoder.decode(bytes));
  } catch (cause) {
    throw new MalformedMessageError(subject, { cause });
  }
}

/** Runs a serve() handler: its value is the reply; a throw (or an unreadable request) becomes an error reply. */
export async function answer(
  handler: (req: IncomingRequest) => Promise<unknown>,
  request: () => IncomingRequest,
): Promise<Reply> {
  try {
    return { ok: true, value: await handler(request()) };
  } catch (error) {
    return { ok: false, error: toWireError(error) };
  }
}
