import { z } from 'zod';
import { DEFAULT_SECRET_KEY_PATTERN, LIMITS } from '@flex/contracts';
import { parseSecretKey } from './secrets/secret-cipher';
import { METRICS_ENV } from './telemetry/metrics-config';
import { checkRetention, RETENTION_ENV } from './retention-config';
import { LOG_LEVELS } from './telemetry/log';

const intFromEnv = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const HOSTNAME =
  /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * What one HTTP server and one API token may hold (docs/security/http-limits.md). The
 * timeouts are the server's: headers, the whole request (headers and body), and an idle keep-alive
 * connection; the rest are per token, except FLEX_LIMIT_CONNECTIONS (all sockets of the server).
 */
const HTTP_LIMITS = {
  FLEX_LIMIT_HEADERS_TIMEOUT_MS: intFromEnv(10_000),
  FLEX_LIMIT_REQUEST_TIMEOUT_MS: intFromEnv(30_000),
  FLEX_LIMIT_IDLE_TIMEOUT_MS: intFromEnv(5_000),
  FLEX_LIMIT_CONNECTIONS: intFromEnv(1_024),
  /** Requests of one token in flight at once (an open SSE stream is one). */
  FLEX_LIMIT_CONNECTIONS_PER_TOKEN: intFromEnv(64),
  FLEX_LIMIT_STREAMS_PER_TOKEN: intFromEnv(16),
  /** Runs of one token planning or running at once (resting paused or on a human, a run does not count). */
  FLEX_LIMIT_RUNS_PER_TOKEN: intFromEnv(8),
  /** The token bucket of each token: refilled at this rate, holding at most the burst. */
  FLEX_LIMIT_REQUESTS_PER_SECOND: intFromEnv(50),
  FLEX_LIMIT_REQUEST_BURST: intFromEnv(100),
  /** An SSE reader whose unsent bytes stay above this for FLEX_LIMIT_SSE_STALL_MS is dropped. */
  FLEX_LIMIT_SSE_BUFFER_BYTES: intFromEnv(1024 * 1024),
  FLEX_LIMIT_SSE_STALL_MS: intFromEnv(10_000),
};

/**
 * Traces (docs/OBSERVABILITY.md): the standard OpenTelemetry variables. Off unless an exporter is
 * asked for (`OTEL_TRACES_EXPORTER=otlp`, or an OTLP endpoint); OTLP goes over HTTP as JSON.
 */
const TRACING = {
  OTEL_SDK_DISABLED: z.enum(['true', 'false']).default('false'),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'console', 'none']).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol(),
  /** Head sampling, as the OpenTelemetry specification names it (default: every trace). */
  OTEL_TRACES_SAMPLER: z
    .enum([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ])
    .default('parentbased_always_on'),
  /** The ratio of the `traceidratio` samplers, 0 to 1 (default 1). */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
};

function otlpProtocol() {
  const error = 'Flex exports OTLP over HTTP: set http/json (the default) or http/protobuf';
  return z.enum(['http/json', 'http/protobuf'], { error }).optional();
}

const ConfigSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    /**
     * The address the HTTP server binds (see {@link bindHost}): an IPv4 or IPv6 address or a host
     * name. Unset: loopback in embedded mode, every interface for a distributed service.
     */
    FLEX_HOST: z
      .union([z.ipv4(), z.ipv6(), z.string().regex(HOSTNAME)], {
        error: 'expected an IP address or a host name (127.0.0.1, 0.0.0.0, ::1, localhost)',
      })
      .optional(),
    FLEX_DATA_DIR: z.string().min(1).default('.flex'),
    /** Embedded PGlite in a worker thread of its own (two cores), or on the main thread. */
    FLEX_PGLITE_THREAD: z.enum(['worker', 'main']).default('worker'),
    FLEX_DATABASE_URL: z.string().url().optional(),
    FLEX_NATS_URL: z.string().min(1).optional(),
    FLEX_NATS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .default('flex'),
    /** The NATS identity this process connects as (its permissions are the server's to enforce). */
    FLEX_NATS_USER: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/)
      .optional(),
    FLEX_NATS_PASSWORD: z.string().optional(),
    /** An NKey seed instead of a password (the server knows the user by its public key). */
    FLEX_NATS_NKEY_SEED: z.string().optional(),
    /** A credentials file (JWT and seed), for a NATS run in operator mode. */
    FLEX_NATS_CREDS: z.string().optional(),
    /** TLS to NATS: the CA that signed the server's certificate; cert and key for mutual TLS. */
    FLEX_NATS_TLS_CA: z.string().optional(),
    FLEX_NATS_TLS_CERT: z.string().optional(),
    FLEX_NATS_TLS_KEY: z.string().optional(),
    /**
     * Replicas of the JetStream event stream when Flex creates it (1 on a single server, 3 on a
     * JetStream cluster of 3). NATS allows 1 to 5.
     */
    FLEX_NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
    /**
     * On SIGTERM a process stops taking work, then waits this long for the work in hand before it
     * exits anyway. Keep it below the orchestrator's grace period (k8s terminationGracePeriodSeconds).
     */
    FLEX_SHUTDOWN_GRACE_MS: intFromEnv(25_000),
    /** Capability registrations one identity may make: a burst, then so many per minute. */
    FLEX_REGISTRATIONS_PER_MINUTE: intFromEnv(60),
    FLEX_REGISTRATION_BURST: intFromEnv(100),
    FLEX_API_TOKENS: z.string().optional(),
    /** The quietest level written as a JSON line on stdout (docs/OBSERVABILITY.md § Logs). */
    FLEX_LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
    /** The quietest level of a run's log lines also sent on its SSE streams as `log` frames. */
    FLEX_LOG_FRAME_LEVEL: z.enum(LOG_LEVELS).default('info'),
    FLEX_MAX_PLAN_ATTEMPTS: intFromEnv(3),
    FLEX_MAX_REPLANS: intFromEnv(3),
    FLEX_MAX_HITL_REQUESTS: intFromEnv(5),
    FLEX_AGENT_TIMEOUT_MS: intFromEnv(60_000),
    FLEX_NODE_MAX_ATTEMPTS: intFromEnv(3),
    /** The time one `POST admin/policy-what-if` may spend re-deciding runs before it answers 422. */
    FLEX_WHAT_IF_BUDGET_MS: intFromEnv(20_000),
    /**
     * How long an agent, the registry or NATS may stay unreachable (no responders, connection down)
     * before that counts as a failure; until then it is waited for with backoff (docs/lifecycle.md).
     * 0: an unreachable peer is a failure at once.
     */
    FLEX_UNREACHABLE_BUDGET_MS: z.coerce.number().int().min(0).default(30_000),
    /** Deliveries of one message before a service gives up on it (dead letter; its run fails). */
    FLEX_BUS_MAX_DELIVER: intFromEnv(10),
    /**
     * How long a delivery stays with the instance that took it before the bus hands it to another
     * (a crashed instance's work moves after this). Long handlers renew it every 4-5 s, hence the floor.
     */
    FLEX_BUS_ACK_WAIT_MS: z.coerce.number().int().min(10_000).default(15_000),
    /** Stream states a process keeps to decide on without rereading the stream (0: none). */
    FLEX_STREAM_CACHE_ENTRIES: z.coerce.number().int().min(0).default(256),
    /**
     * Longest a process serves the registry snapshot it keeps between the registry's change notices
     * (bounds a lost notice; 0: ask the registry every time).
     */
    FLEX_REGISTRY_SNAPSHOT_MAX_AGE_MS: z.coerce.number().int().min(0).default(2_000),
    /** The evaluation budget of an untrusted JSONLogic rule: operations, then allocated items. */
    FLEX_LOGIC_MAX_OPERATIONS: intFromEnv(LIMITS.jsonLogicMaxOperations),
    FLEX_LOGIC_MAX_ITEMS: intFromEnv(LIMITS.jsonLogicMaxItems),
    FLEX_PLANNER: z.enum(['rule-based', 'llm']).default('rule-based'),
    FLEX_LLM_BASE_URL: z.string().url().optional(),
    FLEX_LLM_API_KEY: z.string().optional(),
    FLEX_LLM_MODEL: z.string().optional(),
    /** Seals secret inputs at rest (AES-256-GCM): 32 bytes as base64 or hex; every service the same. */
    FLEX_SECRET_KEY: z
      .string()
      .refine((s) => parseSecretKey(s) !== undefined, { error: 'expected 32 bytes as base64 or hex' })
      .optional(),
    /** Signs chain heads (HMAC-SHA256) in exports and verify answers (docs/AUDIT.md): 32+ characters. */
    FLEX_CHAIN_SIGNING_KEY: z.string().min(32, { error: 'expected at least 32 characters' }).optional(),
    /** Keys (in the envelope's data) whose values are secrets: a regular expression, case-insensitive. */
    FLEX_SECRET_KEY_PATTERN: z
      .string()
      .refine(compiles, { error: 'expected a regular expression' })
      .default(DEFAULT_SECRET_KEY_PATTERN),
    /**
     * The developer sandbox (spec 003 §11): `sandbox/*` routes and the dashboard's sandbox page.
     * Off unless set; for development and staging, never production.
     */
    FLEX_DEV_SANDBOX: z
      .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
      .default('false')
      .transform((v) => ['true', '1', 'yes', 'on'].includes(v)),
    /** A directory of `flex-*.json` TaskEnvelope templates the sandbox offers beside its own. */
    FLEX_SANDBOX_TEMPLATE_DIR: z.string().min(1).optional(),
    /** When set, `GET /metrics` answers only `Authorization: Bearer <this>` (unset: open, as a scrape target). */
    FLEX_METRICS_TOKEN: z.string().min(16, 'FLEX_METRICS_TOKEN must be at least 16 characters').optional(),
    ...HTTP_LIMITS,
    ...RETENTION_ENV,
    ...METRICS_ENV,
    ...TRACING,
  })
  .superRefine(checkNatsAuth)
  .superRefine(checkRetention)
  .refine((c) => c.FLEX_LIMIT_HEADERS_TIMEOUT_MS <= c.FLEX_LIMIT_REQUEST_TIMEOUT_MS, {
    // Node refuses a server whose headers may take longer than the whole request.
    message: 'FLEX_LIMIT_HEADERS_TIMEOUT_MS must not exceed FLEX_LIMIT_REQUEST_TIMEOUT_MS',
    path: ['FLEX_LIMIT_HEADERS_TIMEOUT_MS'],
  });

/** NATS credentials that could never work fail at start, not at the first connection. */
function checkNatsAuth(c: Partial<Record<string, unknown>>, ctx: z.RefinementCtx): void {
  const fail = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  const methods = ['FLEX_NATS_PASSWORD', 'FLEX_NATS_NKEY_SEED', 'FLEX_NATS_CREDS'].filter(
    (k) => c[k] !== undefined,
  );
  if (methods.length > 1) fail(methods[1], `give one of ${methods.join(', ')}`);
  for (const k of ['FLEX_NATS_PASSWORD', 'FLEX_NATS_NKEY_SEED'])
    if (c[k] !== undefined && c.FLEX_NATS_USER === undefined)
      fail('FLEX_NATS_USER', `${k} needs FLEX_NATS_USER, the identity it stands for`);
  if ((c.FLEX_NATS_TLS_CERT === undefined) !== (c.FLEX_NATS_TLS_KEY === undefined))
    fail('FLEX_NATS_TLS_KEY', 'FLEX_NATS_TLS_CERT and FLEX_NATS_TLS_KEY go together');
}

export type FlexConfig = Readonly<z.infer<typeof ConfigSchema>>;

function compiles(source: string): boolean {
  try {
    new RegExp(source, 'i');
    return true;
  } catch {
    return false;
  }
}

/**
 * Where a process's HTTP server listens: FLEX_HOST, else loopback for the embedded system (a laptop
 * should not serve its API to the network unasked) and every interface for a distributed service
 * (a container is reached from outside it: docker-compose.yml, deploy/k8s).
 */
export function bindHost(config: Pick<FlexConfig, 'FLEX_HOST'>, mode: 'embedded' | 'distributed'): string {
  return config.FLEX_HOST ?? (mode === 'embedded' ? '127.0.0.1' : '0.0.0.0');
}

/** `FLEX_SECRET_KEY_PATTERN` as the normalizer takes it. */
export function secretKeyPattern(config: Pick<FlexConfig, 'FLEX_SECRET_KEY_PATTERN'>): RegExp {
  return new RegExp(config.FLEX_SECRET_KEY_PATTERN, 'i');
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'INVALID_CONFIG';
  constructor(readonly issues: string[]) {
    super(`invalid configuration: ${issues.join('; ')}`);
  }
}

/** The only reader of process.env: parse once, with defaults, failing fast. Empty strings count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): FlexConfig {
  return parseEnv(ConfigSchema, env);
}

export type TracingConfig = Readonly<z.infer<typeof TracingSchema>>;

const TracingSchema = z.object(TRACING);

/** Only the OTEL_* settings: for a process that is not a Flex service (the reference agents). */
export function loadTracingConfig(env: NodeJS.ProcessEnv = process.env): TracingConfig {
  return parseEnv(TracingSchema, env);
}

function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): Readonly<z.output<S>> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  return Object.freeze(parsed.data);
}
