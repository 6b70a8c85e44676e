import type { SafePatternIssueCode } from '../regex/safe-regexp';

export type SchemaIssueCode =
  | 'NOT_A_SCHEMA'
  | 'NOT_JSON'
  | 'SCHEMA_TOO_LARGE'
  | 'SCHEMA_TOO_DEEP'
  | 'SCHEMA_TOO_MANY_NODES'
  | SafePatternIssueCode
  | 'DATA_REF'
  | 'REMOTE_REF'
  | 'REF_CYCLE'
  | 'ASYNC_SCHEMA'
  | 'UNKNOWN_KEYWORD'
  | 'INVALID_SCHEMA'
  | 'COMPILE_FAILED';

/** One reason an untrusted schema is refused; `path` is a JSON path into the envelope. */
export interface SchemaIssue {
  readonly path: string;
  readonly code: SchemaIssueCode;
  readonly message: string;
}

export interface UntrustedSchemaLimits {
  /** Serialized size, in UTF-8 bytes of its JSON text. */
  readonly maxBytes: number;
  /** Nesting of objects and arrays; the root object is level 1. */
  readonly maxDepth: number;
  /** Every JSON value counts: objects, arrays, strings, numbers, booleans, nulls. */
  readonly maxNodes: number;
}

export const UNTRUSTED_SCHEMA_LIMITS: UntrustedSchemaLimits = Object.freeze({
  maxBytes: 64 * 1024,
  maxDepth: 32,
  maxNodes: 5000,
});

/** Thrown by `compileUntrustedSchema`; `issues` name each refused spot. Not retryable. */
export class UntrustedSchemaError extends Error {
  override readonly name = 'UntrustedSchemaError';
  readonly code = 'UNTRUSTED_SCHEMA_REJECTED';
  readonly retryable = false;

  constructor(readonly issues: readonly SchemaIssue[]) {
    super(`schema refused: ${issues.map((i) => `${i.path}: ${i.code} (${i.message})`).join('; ')}`);
  }
}
