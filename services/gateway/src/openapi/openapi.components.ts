import {
  ActionSchema,
  CapabilityRegistrationSchema,
  DecisionContractSchema,
  DiagnosticsBundleSchema,
  ErrorResponseSchema,
  FlexEventFrameUnionSchema,
  PlanGraphSchema,
  PlanNodeSchema,
  RunSummarySchema,
  TaskEnvelopeSchema,
} from '@flex/contracts';
import { z } from 'zod';

type Io = 'input' | 'output';

/** Contracts that several answers or bodies hold: one component each, referenced everywhere. */
const SHARED: Readonly<Record<string, z.ZodType>> = {
  TaskEnvelope: TaskEnvelopeSchema,
  Action: ActionSchema,
  CapabilityRegistration: CapabilityRegistrationSchema,
  PlanGraph: PlanGraphSchema,
  PlanNode: PlanNodeSchema,
  DecisionContract: DecisionContractSchema,
  DiagnosticsBundle: DiagnosticsBundleSchema,
  RunSummary: RunSummarySchema,
  FlexEventFrame: FlexEventFrameUnionSchema,
  Error: ErrorResponseSchema,
};

/** Shared contracts a request body may hold (what a client writes: defaults not yet applied). */
const SHARED_INPUTS = ['TaskEnvelope', 'Action', 'CapabilityRegistration'];

const INPUT_SUFFIX = 'Input';
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/**
 * The `components.schemas` of the document, generated from the zod contracts with
 * `z.toJSONSchema`: answers as the server writes them (`output`), request bodies as a client
 * writes them (`input`, named `…Input`). A contract in two places is one component and `$ref`s.
 */
export class SchemaComponents {
  private readonly registries: Record<Io, z.core.$ZodRegistry<{ id: string }>> = {
    output: z.registry<{ id: string }>(),
    input: z.registry<{ id: string }>(),
  };

  constructor() {
    for (const [id, schema] of Object.entries(SHARED)) this.registries.output.add(schema, { id });
    for (const id of SHARED_INPUTS) this.registries.input.add(SHARED[id], { id: `${id}${INPUT_SUFFIX}` });
  }

  /** A `$ref` to `schema`, registered under `name` unless it already has a component. */
  ref(schema: z.ZodType, io: Io, name: string): { $ref: string } {
    const registry = this.registries[io];
    const known = registry.get(schema)?.id;
    if (known) return ref(known);
    const id = io === 'input' ? `${name}${INPUT_SUFFIX}` : name;
    registry.add(schema, { id });
    return ref(id);
  }

  /** The JSON Schema (2020-12, OpenAPI 3.1's dialect) of one schema that is no component (a parameter). */
  static inline(schema: z.ZodType): Record<string, unknown> {
    const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    return json;
  }

  schemas(): Record<string, unknown> {
    const all: Record<string, unknown> = {};
    for (const io of ['output', 'input'] as const) {
      const { schemas } = z.toJSONSchema(this.registries[io], {
        io,
        unrepresentable: 'any',
        uri: (id) => ref(id).$ref,
      });
      for (const [id, schema] of Object.entries(schemas)) {
        // An `$id` of `#/components/…` names a fragment, which 2020-12 forbids; the key names it already.
        const { $schema: _dialect, $id: _id, ...json } = schema as Record<string, unknown>;
        all[id] = json;
      }
    }
    return Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)));
  }
}
