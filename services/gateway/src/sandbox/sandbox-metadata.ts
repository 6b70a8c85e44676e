import { getFacetCatalog, type FacetDefinition } from '@flex/contracts';
import type { CapabilityView } from '@flex/runtime';
import { sandboxTemplates, type EnvelopeTemplate } from './sandbox-templates';

/** `GET sandbox/metadata`: what a developer builds an envelope from. */
export interface SandboxMetadata {
  facets: FacetDefinition[];
  capabilities: { active: CapabilityView[]; all: CapabilityView[] };
  /** The capabilities and facets in words, as the builder's model is told them. */
  capabilityCatalog: string;
  templates: EnvelopeTemplate[];
  /** Template files left out, and why. */
  skippedTemplates: string[];
  model: { configured: boolean; name?: string };
}

export function sandboxMetadata(input: {
  capabilities: CapabilityView[];
  templateDir?: string;
  model?: string;
}): SandboxMetadata {
  const facets = getFacetCatalog().list();
  const { templates, skipped } = sandboxTemplates(input.templateDir);
  return {
    facets,
    capabilities: {
      active: input.capabilities.filter((c) => c.status === 'active'),
      all: input.capabilities,
    },
    capabilityCatalog: catalogText(input.capabilities, facets),
    templates,
    skippedTemplates: skipped,
    model: input.model ? { configured: true, name: input.model } : { configured: false },
  };
}

/** One line per active capability (what it reads and writes), then one per facet. */
export function catalogText(
  capabilities: readonly CapabilityView[],
  facets: readonly FacetDefinition[],
): string {
  const active = capabilities.filter((c) => c.status === 'active').map((c) => c.registration);
  const lines = active.map(
    (r) =>
      `- ${r.capabilityId} (${r.displayName}): ${r.summary} Reads ${r.inputContract.join(', ') || 'nothing'}; writes ${r.outputContract.join(', ')}.`,
  );
  const facetLines = facets.map((f) => `- ${f.name} (${f.metadata.directionality}): ${f.description}`);
  return [`Capabilities:`, ...(lines.length ? lines : ['- none registered']), 'Facets:', ...facetLines].join(
    '\n',
  );
}
