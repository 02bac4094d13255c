// Test host: the real AppBridge talking to a generated file in a sandboxed iframe. Everything the
// guest sends is recorded in window.__log for the tests to inspect.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

window.__log = [];
window.__sizes = [];
window.__calls = [];
window.__links = [];
window.__raw = [];
window.addEventListener('message', (e) => {
  const m = e.data;
  if (m && m.jsonrpc === '2.0' && m.method) window.__log.push(m.method);
  else if (!(m && m.jsonrpc === '2.0')) window.__raw.push(m);
});

window.__downloads = [];
window.__modes = [];
// opts (hostlife.test.mjs): sandbox (default what the reference host grants), caps added to the
// host's capabilities (downloadFile), grant: the display mode granted whatever is asked.
window.startHost = async (src, hostContext, opts = {}) => {
  const iframe = document.createElement('iframe');
  // What the reference host grants (ext-apps: sandbox "allow-scripts"): no forms, no same origin.
  iframe.setAttribute('sandbox', opts.sandbox || 'allow-scripts');
  iframe.title = 'app';
  if (opts.width) iframe.style.width = opts.width + 'px';
  document.body.appendChild(iframe);
  const bridge = new AppBridge(null, { name: 'mcp-gen-ui-test-host', version: '1.0.0' },
    { openLinks: {}, serverTools: {}, logging: {}, message: { text: {} }, updateModelContext: { text: {} }, ...opts.caps },
    { hostContext });
  bridge.ondownloadfile = async (p) => { window.__downloads.push(p); return {}; };
  bridge.onrequestdisplaymode = async ({ mode }) => {
    window.__modes.push(mode);
    const granted = opts.grant || mode;
    bridge.sendHostContextChange({ displayMode: granted });
    return { mode: granted };
  };
  bridge.oncalltool = async (params) => {
    window.__calls.push(params);
    return window.hostCallTool(params);
  };
  bridge.onsizechange = (p) => window.__sizes.push(p);
  bridge.onopenlink = async ({ url }) => { window.__links.push(url); return {}; };
  bridge.onmessage = async () => ({});
  window.__initialized = new Promise((resolve) => { bridge.oninitialized = () => resolve(true); });
  window.__bridge = bridge;
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.src = src;
};
