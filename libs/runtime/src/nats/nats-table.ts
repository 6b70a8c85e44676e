import { eventStreamName } from '@flex/bus';
import { IdentifierSchema } from '@flex/contracts';
import { z } from 'zod';
import { FLEX_SERVICES } from './service-roles';

/**
 * A secret the server config names: an environment variable of the nats-server process (what the
 * shipped configs use: the file holds no secret), or a literal value (tests, local experiments).
 */
const SecretSchema = z.union([
  z.strictObject({ env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, { error: 'an environment variable name' }) }),
  z.strictObject({ value: z.string().min(8) }),
]);

/** Identity names are plain subject tokens; `tok_…` is what API tokens' principals are called. */
const IdentityNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'expected 1..64 characters of A-Z a-z 0-9 _ -' })
  .refine((name) => !name.startsWith('tok_'), { error: 'tok_… names belong to API tokens' });

const credentials = {
  /** The identity's password (with `name` as the user). */
  password: SecretSchema.optional(),
  /** Or the public NKey (`U…`) the server knows the identity by. */
  nkey: SecretSchema.optional(),
};

const NatsIdentitySchema = z
  .discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('service'),
      name: IdentityNameSchema,
      service: z.enum(FLEX_SERVICES),
      ...credentials,
    }),
    z.strictObject({
      kind: z.literal('agent'),
      name: IdentityNameSchema,
      capabilities: z.array(IdentifierSchema).min(1),
      ...credentials,
    }),
    z.strictObject({ kind: z.literal('admin'), name: IdentityNameSchema, ...credentials }),
  ])
  .refine((i) => (i.password === undefined) !== (i.nkey === undefined), {
    error: 'give each identity exactly one of password and nkey',
  });

/**
 * The declarative permission table (`deploy/nats/identities.json` is the shipped one): who may
 * connect, as what. {@link renderNatsServerConfig} turns it into the nats-server configuration.
 */
export const NatsTableSchema = z
  .strictObject({
    prefix: z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/),
    /** Default: the bus's stream name for the prefix (`FLEX_EVENTS` for `flex`). */
    streamName: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .optional(),
    /** Server TLS: every client connection is encrypted; `verifyClients` also demands client certificates. */
    tls: z
      .strictObject({
        certFile: z.string().min(1),
        keyFile: z.string().min(1),
        caFile: z.string().min(1).optional(),
        verifyClients: z.boolean().default(false),
      })
      .optional(),
    identities: z.array(NatsIdentitySchema).min(1),
  })
  .superRefine((table, ctx) => {
    const seen = new Set<string>();
    table.identities.forEach((identity, index) => {
      if (seen.has(identity.name))
        ctx.addIssue({
          code: 'custom',
          path: ['identities', index, 'name'],
          message: `${identity.name} twice`,
        });
      seen.add(identity.name);
    });
  })
  .transform((table) => ({ ...table, streamName: table.streamName ?? eventStreamName(table.prefix) }));

export type NatsTable = z.output<typeof NatsTableSchema>;
export type NatsTableInput = z.input<typeof NatsTableSchema>;
export type NatsIdentity = NatsTable['identities'][number];
export type NatsSecret = z.output<typeof SecretSchema>;

/** Parses a permission table, failing with every path that is wrong. */
export function parseNatsTable(input: unknown): NatsTable {
  const parsed = NatsTableSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(table)'}: ${i.message}`);
  throw new Error(`invalid NATS permission table: ${issues.join('; ')}`);
}
