import type { FlexConfig } from '@flex/runtime';
import { fullBucket, take, type Bucket, type BucketRule } from './token-bucket';

/** What one API token may hold at once, and how fast it may ask (FLEX_LIMIT_* in the config). */
export interface TokenLimits {
  requests: BucketRule;
  /** Requests in flight at once (an open SSE stream is one). */
  connections: number;
  streams: number;
  runs: number;
}

export function tokenLimitsFrom(config: FlexConfig): TokenLimits {
  return {
    requests: {
      ratePerSecond: config.FLEX_LIMIT_REQUESTS_PER_SECOND,
      burst: config.FLEX_LIMIT_REQUEST_BURST,
    },
    connections: config.FLEX_LIMIT_CONNECTIONS_PER_TOKEN,
    streams: config.FLEX_LIMIT_STREAMS_PER_TOKEN,
    runs: config.FLEX_LIMIT_RUNS_PER_TOKEN,
  };
}

/** Why a token's request is refused with 429 (the API error's `code`). */
export type LimitCode = 'rate_limited' | 'too_many_connections' | 'too_many_streams' | 'too_many_runs';

export interface LimitRefusal {
  code: LimitCode;
  message: string;
  limit: number;
  retryAfterSeconds: number;
}

/** A slot held until `release()`; releasing twice releases once. */
export type Admission = { ok: true; release: () => void } | { ok: false; refusal: LimitRefusal };

interface TokenState {
  bucket: Bucket;
  inFlight: number;
  streams: number;
}

/**
 * Per-token counters of one gateway process. Keyed by principal id, so the map holds at most one
 * entry per configured token. Several gateway instances each count their own: a token's real
 * ceiling is the limit times the instances a load balancer spreads it over.
 */
export class ClientLimits {
  private readonly tokens = new Map<string, TokenState>();

  constructor(
    readonly limits: TokenLimits,
    private readonly now: () => number,
  ) {}

  /** One request: a token from the bucket, then a slot among the token's requests in flight. */
  admitRequest(principal: string): Admission {
    const state = this.stateOf(principal);
    const taken = take(state.bucket, this.limits.requests, this.now());
    state.bucket = taken.bucket;
    if (!taken.ok)
      return refuse(
        'rate_limited',
        `more than ${this.limits.requests.ratePerSecond} requests a second (burst ${this.limits.requests.burst})`,
        this.limits.requests.ratePerSecond,
        taken.retryAfterSeconds,
      );
    if (state.inFlight >= this.limits.connections)
      return refuse(
        'too_many_connections',
        `${this.limits.connections} requests of this token are in flight already`,
        this.limits.connections,
        1,
      );
    state.inFlight += 1;
    return admitted(() => (state.inFlight -= 1));
  }

  /** One SSE stream, held until the stream ends. */
  openStream(principal: string): Admission {
    const state = this.stateOf(principal);
    if (state.streams >= this.limits.streams)
      return refuse(
        'too_many_streams',
        `${this.limits.streams} event streams of this token are open already`,
        this.limits.streams,
        1,
      );
    state.streams += 1;
    return admitted(() => (state.streams -= 1));
  }

  private stateOf(principal: string): TokenState {
    let state = this.tokens.get(principal);
    if (!state) {
      state = { bucket: fullBucket(this.limits.requests, this.now()), inFlight: 0, streams: 0 };
      this.tokens.set(principal, state);
    }
    return state;
  }
}

function admitted(release: () => void): Admission {
  let held = true;
  return {
    ok: true,
    release: () => {
      if (held) release();
      held = false;
    },
  };
}

function refuse(code: LimitCode, message: string, limit: number, retryAfterSeconds: number): Admission {
  return { ok: false, refusal: { code, message, limit, retryAfterSeconds } };
}
