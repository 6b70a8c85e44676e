import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Obj = Record<string, unknown>;
const DOC_ID = 'https://flex.invalid/openapi.json';
const COMPONENTS = '#/components/schemas/';
const DEFS = '#/$defs/';

/**
 * An OpenAPI 3.1 document's schemas compiled with a JSON Schema 2020-12 validator (strict: a keyword
 * it does not know is an error), to check that answers the server really gives match what the
 * document says.
 */
export class OpenApiCheck {
  private readonly ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: Obj) {
    addFormats(this.ajv);
    // The components as `$defs` of one schema (a validator knows no `components` keyword).
    const schemas = ((document.components as Obj | undefined)?.schemas ?? {}) as Obj;
    this.ajv.addSchema({
      $id: DOC_ID,
      $defs: JSON.parse(JSON.stringify(schemas).replaceAll(COMPONENTS, DEFS)),
    });
  }

  /** Every component compiles, and every `$ref` anywhere in the document names one that exists. */
  assertSchemasCompile(): void {
    const schemas = ((this.document.components as Obj).schemas ?? {}) as Obj;
    for (const name of Object.keys(schemas)) this.validator(`#/components/schemas/${name}`);
    for (const ref of refsIn(this.document))
      if (!(ref.replace('#/components/schemas/', '') in schemas)) throw new Error(`dangling $ref ${ref}`);
  }

  /** The schema the document gives for an answer of `method path` with `status`, as a JSON pointer. */
  responseRef(method: string, path: string, status: number): string {
    const op = ((this.document.paths as Obj)[path] as Obj | undefined)?.[method.toLowerCase()] as
      Obj | undefined;
    if (!op) throw new Error(`${method} ${path} is not in the document`);
    const response = (op.responses as Obj)[String(status)] as Obj | undefined;
    if (!response) throw new Error(`${method} ${path} documents no ${status}`);
    const schema = ((response.content as Obj | undefined)?.['application/json'] as Obj | undefined)
      ?.schema as { $ref?: string } | undefined;
    if (!schema?.$ref) throw new Error(`${method} ${path} ${status} has no JSON schema`);
    return schema.$ref;
  }

  /** The validation errors of `body` as the answer `status` of `method path` (empty: it matches). */
  errors(method: string, path: string, status: number, body: unknown): string[] {
    const validate = this.validator(this.responseRef(method, path, status));
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  }

  /** The errors of `value` against one component. */
  componentErrors(name: string, value: unknown): string[] {
    const validate = this.validator(`#/components/schemas/${name}`);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOC_ID}${pointer.replace(COMPONENTS, DEFS)}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }
}

function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) =>
    key === '$ref' && typeof v === 'string' ? [v] : refsIn(v),
  );
}
