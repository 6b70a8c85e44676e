import { useEffect, useState } from 'preact/hooks';
import type { FlexApi } from '../api/client';
import type { SandboxMetadata } from '../api/types';
import { routeHref } from '../router';
import { CapabilityTable, useNow } from './capabilities-page';
import { ErrorNote, Panel } from './common';
import { ConversationPanel } from './conversation-panel';
import { openInEditor } from './editor-page';

/**
 * The developer sandbox (FLEX_DEV_SANDBOX): the registry's metadata (facet catalog, capability
 * snapshots, envelope templates), the guided conversational builder, and the plan inspector.
 */
export function SandboxPage({ api }: { api: FlexApi }) {
  const [metadata, setMetadata] = useState<SandboxMetadata>();
  const [error, setError] = useState<unknown>();
  const now = useNow();
  useEffect(() => {
    api.sandboxMetadata().then(setMetadata, setError);
  }, [api]);
  return (
    <div class="page">
      <div class="page-title">
        <h1>Developer sandbox</h1>
        <a class="button secondary" href={routeHref({ page: 'inspect' })}>
          Plan inspector
        </a>
      </div>
      <ErrorNote error={error} />
      {metadata && <ConversationPanel api={api} metadata={metadata} />}
      {metadata && (
        <>
          <Panel title={`Envelope templates (${metadata.templates.length})`} id="templates">
            <ul class="plain">
              {metadata.templates.map((t) => (
                <li key={t.id}>
                  <strong>{t.name}</strong> <span class="muted small">({t.source})</span> — {t.description}{' '}
                  <button type="button" class="link" onClick={() => openInEditor(t.envelope)}>
                    Open in the editor
                  </button>
                </li>
              ))}
            </ul>
          </Panel>
          <Panel title={`Facet catalog (${metadata.facets.length})`} id="facets">
            <table class="small">
              <thead>
                <tr>
                  <th scope="col">Facet</th>
                  <th scope="col">Direction</th>
                  <th scope="col">What it is</th>
                </tr>
              </thead>
              <tbody>
                {metadata.facets.map((f) => (
                  <tr key={f.name}>
                    <td>
                      <code>{f.name}</code>
                      <div class="muted">{f.title}</div>
                    </td>
                    <td>
                      {f.metadata.directionality}
                      {f.metadata.sensitive ? ' (sensitive)' : ''}
                    </td>
                    <td>{f.description}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Panel>
          <Panel
            title={`Capabilities: ${metadata.capabilities.active.length} active of ${metadata.capabilities.all.length}`}
            id="sandbox-capabilities"
          >
            <CapabilityTable capabilities={metadata.capabilities.all} now={now} />
            <details>
              <summary>The capability catalog as the planner’s prompt reads it</summary>
              <pre tabIndex={0}>{metadata.capabilityCatalog}</pre>
            </details>
          </Panel>
        </>
      )}
    </div>
  );
}
