/** The dashboard page: runs, their live event streams, plans, outputs and capabilities. No build step. */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Flex</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
 body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
 header{background:#1d2330;color:#fff;padding:10px 16px;display:flex;gap:12px;align-items:center}
 header h1{font-size:16px;margin:0 12px 0 0}
 input{padding:5px 8px;border:1px solid #c8ccd4;border-radius:4px;min-width:280px}
 button{padding:5px 10px;border:0;border-radius:4px;background:#3a6ff7;color:#fff;cursor:pointer}
 main{display:grid;grid-template-columns:380px 1fr;gap:12px;padding:12px}
 section{background:#fff;border-radius:6px;padding:10px;box-shadow:0 1px 2px #0001;overflow:auto;max-height:calc(100vh - 90px)}
 h2{font-size:13px;text-transform:uppercase;color:#687089;margin:4px 0 8px}
 table{width:100%;border-collapse:collapse} td{padding:5px 4px;border-bottom:1px solid #eef0f3;vertical-align:top}
 tr.run{cursor:pointer} tr.run:hover{background:#f0f4ff} tr.sel{background:#e4ebff}
 .st{font-size:12px;padding:1px 6px;border-radius:8px;background:#eef0f3}
 .completed{background:#d9f5e3}.failed{background:#fde1e1}.running,.planning{background:#fff2cc}.awaiting_hitl,.paused{background:#e8dcff}.cancelled{background:#e6e6e6}
 .ev{font-family:ui-monospace,monospace;font-size:12px;border-bottom:1px solid #f0f1f4;padding:3px 0}
 .ev b{display:inline-block;min-width:130px} pre{background:#f7f8fa;padding:8px;border-radius:4px;overflow:auto;font-size:12px;white-space:pre-wrap}
 .err{color:#b42318}
 .diag{margin:2px 0 4px 134px;font-size:12px;color:#445} .diag ul{margin:2px 0;padding-left:16px}
</style></head>
<body>
<header><h1>Flex</h1><input id="token" type="password" placeholder="API token"><button id="save">Use token</button><span id="status"></span></header>
<main>
 <section><h2>Runs</h2><table id="runs"></table><h2 style="margin-top:16px">Capabilities</h2><table id="caps"></table></section>
 <section><h2 id="title">Select a run</h2><div id="events"></div><div id="detail"></div></section>
</main>
<script>
const api = '/api/v1/flex/';
const $ = (id) => document.getElementById(id);
const hash = new URLSearchParams(location.hash.slice(1));
const fromHash = hash.get('token');
const openRun = hash.get('run');
if (fromHash) { localStorage.setItem('flexToken', fromHash); history.replaceState(null, '', location.pathname); }
let token = localStorage.getItem('flexToken') || '';
let follow = null;
$('token').value = token;
$('save').onclick = () => { token = $('token').value.trim(); localStorage.setItem('flexToken', token); refresh(); };
const unsatisfied = (d) => [].concat(d.failures || [], d.warnings || []).filter((x) => x.status === 'unsatisfied');
const finding = (x) => '<li class="' + (x.severity === 'hard' ? 'err' : '') + '">' + esc(x.constraintId || x.cause) + ': ' + esc(x.constraint || x.cause) + (x.suggestion ? '<br><small>fix: ' + esc(x.suggestion.split('\\n')[0]) + '</small>' : '') + '</li>';
const registryOf = (r) => r ? ' · registry ' + esc(r.hash.slice(0, 12)) + ' (' + esc(r.capabilities.length) + ' capabilities)' : '';
function findings(p) {
  if (!p || !p.diagnostics) return '';
  const d = p.diagnostics; const rows = unsatisfied(d).map(finding).join('');
  return '<div class="diag">' + esc(d.status) + ' · score ' + esc(d.satisfactionScore) + (d.verdict ? ' · ' + esc(d.verdict) : '') + registryOf(p.registry) + (rows ? '<ul>' + rows + '</ul>' : '') + '</div>';
}
const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
async function get(path) {
  const res = await fetch(api + path, { headers: { Authorization: 'Bearer ' + token } });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error ? body.error.code + ': ' + body.error.message : 'HTTP ' + res.status);
  return body;
}
async function refresh() {
  if (!token) { $('status').textContent = 'paste a token'; return; }
  try {
    const { runs } = await get('runs?limit=100');
    $('runs').innerHTML = runs.map((r) => '<tr class="run" data-id="' + esc(r.runId) + '"><td><span class="st ' + esc(r.status) + '">' + esc(r.status) + '</span></td><td>' + esc(r.objective).slice(0, 80) + '<br><small>' + esc(r.createdAt) + ' · v' + esc(r.planVersion) + '</small></td></tr>').join('') || '<tr><td>no runs yet</td></tr>';
    document.querySelectorAll('tr.run').forEach((tr) => (tr.onclick = () => open(tr.dataset.id)));
    const caps = await get('capabilities').catch(() => ({ capabilities: [] }));
    $('caps').innerHTML = caps.capabilities.map((c) => '<tr><td><span class="st ' + (c.status === 'active' ? 'completed' : 'failed') + '">' + esc(c.status) + '</span></td><td>' + esc(c.registration.capabilityId) + '<br><small>' + esc(c.activeInstances) + ' instance(s)</small></td></tr>').join('');
    $('status').textContent = '';
  } catch (e) { $('status').innerHTML = '<span class="err">' + esc(e.message) + '</span>'; }
}
async function open(runId) {
  if (follow) follow.abort();
  follow = new AbortController();
  document.querySelectorAll('tr.run').forEach((tr) => tr.classList.toggle('sel', tr.dataset.id === runId));
  $('title').textContent = runId; $('events').innerHTML = ''; $('detail').innerHTML = '';
  try {
    const res = await fetch(api + 'runs/' + encodeURIComponent(runId) + '/events', { headers: { Authorization: 'Bearer ' + token }, signal: follow.signal });
    const reader = res.body.getReader(); const dec = new TextDecoder(); let buf = '';
    for (;;) {
      const { value, done } = await reader.read(); if (done) break;
      buf += dec.decode(value, { stream: true });
      let i; while ((i = buf.indexOf('\\n\\n')) >= 0) {
        const block = buf.slice(0, i); buf = buf.slice(i + 2);
        const data = block.split('\\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\\n');
        if (!data) continue;
        const f = JSON.parse(data);
        $('events').insertAdjacentHTML('beforeend', '<div class="ev"><small>' + esc(f.timestamp.slice(11, 23)) + '</small> <b>' + esc(f.type) + '</b> ' + esc(f.message) + findings(f.payload) + '</div>');
      }
    }
    const d = await get('runs/' + encodeURIComponent(runId));
    $('detail').innerHTML = '<h2>Output</h2><pre>' + esc(JSON.stringify(d.output ? d.output.output : d.run.failure, null, 2)) + '</pre><h2>Plans</h2><table>' + d.planVersions.map((v) => '<tr><td>v' + esc(v.version) + '</td><td>' + esc(v.status) + '</td><td>score ' + esc(v.satisfactionScore) + (v.diagnostics && v.diagnostics.verdict ? ' · ' + esc(v.diagnostics.verdict) : '') + '</td><td><small>registry ' + esc((v.registryHash || '').slice(0, 12)) + '</small></td></tr>').join('') + '</table><h2>Nodes</h2><table>' + d.nodes.map((n) => '<tr><td>' + esc(n.nodeId) + '</td><td>' + esc(n.capabilityId || n.kind) + '</td><td><span class="st ' + esc(n.status) + '">' + esc(n.status) + '</span></td><td>attempt ' + esc(n.attempt) + '</td></tr>').join('') + '</table>';
    refresh();
  } catch (e) { if (e.name !== 'AbortError') $('events').insertAdjacentHTML('beforeend', '<div class="err">' + esc(e.message) + '</div>'); }
}
refresh().then(() => openRun && open(openRun)); setInterval(refresh, 5000);
</script></body></html>`;
