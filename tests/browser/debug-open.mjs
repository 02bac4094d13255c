// Dev aid: opens one generated file in the test host, optionally sends tool-input, submits, and
// prints inline errors. `node browser/debug-open.mjs DIR FILE.html [ARGS_JSON]` (SHOT=png to capture).
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';
import { CHROMIUM_ARGS } from './lib.mjs';
const [dir, file, argsJson] = process.argv.slice(2);
const { server, port } = await startServer({ current: dir });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
const page = await browser.newPage();
page.on('console', (m) => console.log('console.' + m.type(), m.text()));
page.on('pageerror', (e) => console.log('pageerror', e));
await page.exposeFunction('hostCallTool', async (p) => { console.log('CALL', JSON.stringify(p)); return { content: [{ type: 'text', text: 'ok' }] }; });
await page.goto(`http://127.0.0.1:${port}/host.html`);
await page.waitForFunction(() => typeof window.startHost === 'function');
await page.evaluate(([src]) => window.startHost(src, { theme: 'light' }), [`/guest/${file}`]);
await page.waitForFunction(() => window.__initialized);
const frame = page.frames().find((f) => f.url().includes('/guest/'));
if (argsJson) await page.evaluate((a) => window.__bridge.sendToolInput({ arguments: a }), JSON.parse(argsJson));
await page.waitForTimeout(200);
await frame.click('button[type=submit]');
await page.waitForTimeout(500);
console.log(await frame.evaluate(() => [...document.querySelectorAll('.err:not([hidden])')].map((x) => (x.closest('.fld,fieldset').querySelector('label,legend')||{}).textContent + ': ' + x.textContent).join('\n')));
if (process.env.SHOT) await page.screenshot({ path: process.env.SHOT, fullPage: true });
await browser.close(); server.close();
