import type { FacetDefinition } from '@flex/contracts';

/** Facets grouped by the way they flow through one node. */
export interface FacetsByDirection {
  readonly input: readonly FacetDefinition[];
  readonly output: readonly FacetDefinition[];
}

/**
 * The merged system instruction of spec 003 §5.7 step 4: each facet's `semantics`, inputs first,
 * then outputs, each list sorted by facet name, so the same facets always give the same text.
 */
export function composeInstruction(facets: FacetsByDirection): string {
  const sections: string[] = [];
  const input = sortByName(facets.input);
  const output = sortByName(facets.output);
  if (input.length > 0) {
    sections.push(['Inputs: the payload is a JSON object with these keys.', ...input.map(line)].join('\n'));
  }
  if (output.length > 0) {
    const keys = [...new Set(output.map(keyOf))].sort().join(', ');
    sections.push(
      [`Outputs: reply with one JSON object holding exactly these keys: ${keys}.`, ...output.map(line)].join(
        '\n',
      ),
    );
  }
  return sections.join('\n\n');
}

function line(facet: FacetDefinition): string {
  const key = keyOf(facet);
  const where = key === facet.name ? '' : ` (under key "${key}")`;
  return `- ${facet.name} (${facet.title})${where}: ${facet.semantics.trim()}`;
}

function keyOf(facet: FacetDefinition): string {
  return facet.propertyKey ?? facet.name;
}

function sortByName(facets: readonly FacetDefinition[]): FacetDefinition[] {
  return [...facets].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
