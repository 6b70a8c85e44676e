import type { FlexConfig } from '@flex/runtime';
import { NO_REFUSALS, spreadRefusal, type RefusalWindow } from './refusal-spread';
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
  refusals: RefusalWindow;
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

  /**
   * One request: a token from the bucket and a slot among the token's requests in flight. A refused
   * request costs nothing: the bucket gives its token only to a request that also has a slot.
   */
  admitRequest(principal: string): Admission {
    const state = this.stateOf(principal);
    const taken = take(state.bucket, this.limits.requests, this.now());
    const { ratePerSecond, burst } = this.limits.requests;
    if (!taken.ok)
      return this.refuse(principal, {
        code: 'rate_limited',
        message: `more than ${ratePerSecond} requests a second (burst ${burst})`,
        limit: ratePerSecond,
        retryAfterSeconds: taken.retryAfterSeconds,
      });
    if (state.inFlight >= this.limits.connections)
      return this.refuse(principal, {
        code: 'too_many_connections',
        message: `${this.limits.connections} requests of this token are in flight already`,
        limit: this.limits.connections,
        retryAfterSeconds: 1,
      });
    state.bucket = taken.bucket;
    state.inFlight += 1;
    return admitted(() => (state.inFlight -= 1));
  }

  /** One SSE stream, held until the stream ends. */
  openStream(principal: string): Admission {
    const state = this.stateOf(principal);
    if (state.streams >= this.limits.streams)
      return this.refuse(principal, {
        code: 'too_many_streams',
        message: `${this.limits.streams} event streams of this token are open already`,
        limit: this.limits.streams,
        retryAfterSeconds: 1,
      });
    state.streams += 1;
    return admitted(() => (state.streams -= 1));
  }

  /**
   * A refusal of the token, its Retry-After (`retryAfterSeconds` at least) spread over the seconds
   * to come so that its refused requests come back at about its request rate (see spreadRefusal).
   * Every 429 for a token goes through here, those of other limits (working runs) included.
   */
  refusal(principal: string, refusal: LimitRefusal): LimitRefusal {
    const state = this.stateOf(principal);
    const spread = spreadRefusal(
      state.refusals,
      this.now(),
      this.limits.requests.ratePerSecond,
      refusal.retryAfterSeconds,
    );
    state.refusals = spread.window;
    return { ...refusal, retryAfterSeconds: spread.retryAfterSeconds };
  }

  private refuse(principal: string, refusal: LimitRefusal): Admission {
    return { ok: false, refusal: this.refusal(principal, refusal) };
  }

  private stateOf(principal: string): TokenState {
    let state = this.tokens.get(principal);
    if (!state) {
      state = {
        bucket: fullBucket(this.limits.requests, this.now()),
        inFlight: 0,
        streams: 0,
        refusals: NO_REFUSALS,
      };
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
