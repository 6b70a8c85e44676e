import type { CapabilityRegistration } from '@flex/contracts';
import { defaultFacetCompiler, type CompiledFacetSchema, type FacetContractCompiler } from '@flex/facets';
import { InvalidInputError, InvalidOutputError, type FacetIssue } from './errors';

/**
 * The agent's own side of its contract: inputs must be declared facets and match their schemas;
 * the output must match the facets the node asked for.
 */
export class FacetGuard {
  private readonly inputFacets: ReadonlySet<string>;
  private readonly outputFacets: ReadonlySet<string>;

  constructor(
    registration: CapabilityRegistration,
    private readonly compiler: FacetContractCompiler = defaultFacetCompiler(),
  ) {
    this.inputFacets = new Set(registration.inputContract);
    this.outputFacets = new Set(registration.outputContract);
    // Fail fast on a contract the catalog cannot compile, before any invocation arrives.
    this.contract(registration.inputContract, 'input');
    this.contract(registration.outputContract, 'output');
  }

  /** Only the facets present are checked: a node may use a subset of the declared inputs. */
  checkInputs(inputs: Record<string, unknown>): void {
    const present = Object.keys(inputs);
    const undeclared = present.filter((facet) => !this.inputFacets.has(facet));
    if (undeclared.length > 0) {
      throw new InvalidInputError(
        `undeclared input facets: ${undeclared.join(', ')}`,
        undeclared.map((facet) => ({
          facet,
          pointer: `/${facet}`,
          keyword: 'undeclared',
          message: 'facet is not in the input contract',
        })),
      );
    }
    if (present.length === 0) return;
    const issues = this.contract(present, 'input').validate(inputs);
    if (issues.length > 0)
      throw new InvalidInputError(`inputs break the input contract: ${summarize(issues)}`, issues);
  }

  /** The facets to produce: the requested ones (all declared outputs when none is named). */
  resolveOutputFacets(requested: readonly string[]): string[] {
    if (requested.length === 0) return [...this.outputFacets];
    const unknown = requested.filter((facet) => !this.outputFacets.has(facet));
    if (unknown.length > 0) {
      throw new InvalidInputError(
        `requested output facets not produced by this capability: ${unknown.join(', ')}`,
        unknown.map((facet) => ({
          facet,
          pointer: `/${facet}`,
          keyword: 'undeclared',
          message: 'facet is not in the output contract',
        })),
      );
    }
    return [...new Set(requested)];
  }

  /** Keep only the requested facets and check them; an invalid output is an error, never a reply. */
  checkOutput(output: unknown, facets: readonly string[]): Record<string, unknown> {
    if (output === null || typeof output !== 'object' || Array.isArray(output)) {
      throw new InvalidOutputError('handler output is not an object keyed by facet name', [
        { facet: '', pointer: '', keyword: 'type', message: 'must be an object' },
      ]);
    }
    const picked: Record<string, unknown> = {};
    for (const facet of facets) {
      if (facet in output) picked[facet] = (output as Record<string, unknown>)[facet];
    }
    const issues = this.contract(facets, 'output').validate(picked);
    if (issues.length > 0)
      throw new InvalidOutputError(`output breaks the output contract: ${summarize(issues)}`, issues);
    return picked;
  }

  /** The compiler caches per (direction, facet set), so this is a map lookup after the first call. */
  private contract(facets: readonly string[], direction: 'input' | 'output'): CompiledFacetSchema {
    return this.compiler.compile(facets, direction);
  }
}

function summarize(issues: readonly FacetIssue[]): string {
  const shown = issues.slice(0, 5).map((i) => `${i.facet}${i.pointer ? ` ${i.pointer}` : ''} ${i.message}`);
  return issues.length > 5 ? `${shown.join('; ')}; and ${issues.length - 5} more` : shown.join('; ');
}
