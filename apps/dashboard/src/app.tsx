import { useEffect, useMemo, useState } from 'preact/hooks';
import { FlexApi } from './api/client';
import { ApiError } from './api/api-error';
import { forgetToken, loadToken, saveToken } from './auth/token';
import { parseRoute, routeHref, type Route } from './router';
import { CapabilitiesPage } from './views/capabilities-page';
import { EditorPage } from './views/editor-page';
import { InspectorPage } from './views/inspector-page';
import { RunPage } from './views/run-page';
import { RunsPage } from './views/runs-page';
import { SandboxPage } from './views/sandbox-page';
import { TokenForm } from './views/token-form';
import { WhatIfPage } from './views/what-if-page';

/** The dashboard: a token first, then the page the URL's fragment names. */
export function App() {
  const [token, setToken] = useState(loadToken);
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash));
  useEffect(() => {
    const follow = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  const api = useMemo(() => (token ? new FlexApi(token) : undefined), [token]);
  const sandbox = useSandboxFlag(api);
  const signOut = () => {
    forgetToken();
    setToken(undefined);
  };
  return (
    <>
      <a class="skip" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Flex</span>
        {api && <Nav route={route} sandbox={sandbox} />}
        {api && (
          <button type="button" class="quiet" onClick={signOut}>
            Forget token
          </button>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {api ? (
          <Page route={route} api={api} sandbox={sandbox} />
        ) : (
          <TokenForm
            onToken={(t) => {
              saveToken(t);
              setToken(t);
            }}
          />
        )}
      </main>
    </>
  );
}

function Page({ route, api, sandbox }: { route: Route; api: FlexApi; sandbox: boolean }) {
  switch (route.page) {
    case 'runs':
      return <RunsPage api={api} status={route.status} per={route.per} />;
    case 'run':
      return <RunPage key={route.runId} api={api} runId={route.runId} nodeId={route.nodeId} />;
    case 'new':
      return <EditorPage api={api} sandbox={sandbox} />;
    case 'capabilities':
      return <CapabilitiesPage api={api} />;
    case 'what-if':
      return <WhatIfPage api={api} />;
    case 'sandbox':
      return sandbox ? <SandboxPage api={api} /> : <SandboxOff />;
    case 'inspect':
      return sandbox ? <InspectorPage key={route.runId} api={api} runId={route.runId} /> : <SandboxOff />;
  }
}

const LINKS: Array<{ label: string; route: Route; pages: Array<Route['page']>; sandbox?: boolean }> = [
  { label: 'Runs', route: { page: 'runs' }, pages: ['runs', 'run'] },
  { label: 'New run', route: { page: 'new' }, pages: ['new'] },
  { label: 'Capabilities', route: { page: 'capabilities' }, pages: ['capabilities'] },
  { label: 'Policy what-if', route: { page: 'what-if' }, pages: ['what-if'] },
  { label: 'Sandbox', route: { page: 'sandbox' }, pages: ['sandbox', 'inspect'], sandbox: true },
];

function Nav({ route, sandbox }: { route: Route; sandbox: boolean }) {
  return (
    <nav aria-label="Pages">
      <ul>
        {LINKS.filter((l) => sandbox || !l.sandbox).map((link) => (
          <li key={link.label}>
            <a
              href={routeHref(link.route)}
              aria-current={link.pages.includes(route.page) ? 'page' : undefined}
            >
              {link.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function SandboxOff() {
  return (
    <p class="notice">
      The developer sandbox is off. Start Flex with <code>FLEX_DEV_SANDBOX=true</code> to use it.
    </p>
  );
}

/** Whether this Flex serves the sandbox (FLEX_DEV_SANDBOX): its metadata route answers instead of 404. */
function useSandboxFlag(api: FlexApi | undefined): boolean {
  const [on, setOn] = useState(false);
  useEffect(() => {
    setOn(false);
    if (!api) return;
    api.sandboxMetadata().then(
      () => setOn(true),
      (error: unknown) => setOn(error instanceof ApiError && error.status !== 404),
    );
  }, [api]);
  return on;
}

function skipToMain(event: Event): void {
  event.preventDefault();
  document.getElementById('main')?.focus();
}
