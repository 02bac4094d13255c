// Screenshots of real generated UIs in the same AppBridge host the tests use, light and dark.
// `node browser/screenshots.mjs [OUT_DIR]` (from tests/) writes the book's images;
// `node browser/screenshots.mjs --all OUT_DIR [SERVER ...]` shoots every tool of each server
// (kitchen-sink, weather-server, db-server: the examples; everything: server-everything; default
// kitchen-sink), run with its sample input against the live server, at 360 px and 800 px, light
// and dark, for a visual review.
import path from 'node:path';
import fs from 'node:fs';
import { launch, buildRust, exampleServer, everythingServer, generate, connect, sample, REPO } from './lib.mjs';

// server-everything tools that wait on a client feature this harness does not offer.
const SKIP = new Set(['trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list', 'trigger-long-running-operation', 'simulate-research-query', 'trigger-sampling-request-async', 'trigger-elicitation-request-async']);

buildRust();
const all = process.argv[2] === '--all';
const out = path.resolve(process.argv[all ? 3 : 2] || path.join(REPO, 'book', 'src', 'images'));
// The book's images: [tool, arguments to run with (null: the form only), frame width] per server.
const BOOK = {
  'kitchen-sink': [
    ['sales_series', { months: 12 }, 800],
    ['list_users', { limit: 8 }, 800],
    ['nested', null, 800],
    ['all_types', null, 800],
    ['all_types', null, 360],
  ],
  'weather-server': [['get_forecast', { city: 'Paris', days: 7 }, 800]],
  'db-server': [['query', { sql: 'SELECT * FROM orders', limit: 100 }, 800]],
};
const servers = all ? (process.argv.length > 4 ? process.argv.slice(4) : ['kitchen-sink']) : Object.keys(BOOK);
fs.mkdirSync(out, { recursive: true });
const env = await launch();
for (const server of servers) {
  const cmd = server === 'everything' ? everythingServer() : exampleServer(server);
  const ks = await generate(cmd, 'shots');
  const client = await connect(cmd);
  env.guestDir.current = ks.dir;
  const SHOTS = all
    ? ks.tools.filter((t) => !SKIP.has(t.name)).flatMap((t) => [[t.name, sample(t.inputSchema || {}), 360], [t.name, sample(t.inputSchema || {}), 800]])
    : BOOK[server];
  try {
    for (const theme of ['light', 'dark']) {
      for (const [tool, args, width] of SHOTS) {
        const { page, frame } = await env.openApp(`${tool}.html`, {
          onCall: (p) => client.callTool({ name: p.name, arguments: p.arguments }),
          hostContext: { theme, locale: 'en-US', timeZone: 'Europe/Paris' },
        });
        await page.setViewportSize({ width: width + 20, height: 2400 });
        await page.evaluate((w) => { document.querySelector('iframe').style.width = w + 'px'; }, width);
        if (args) {
          await page.evaluate((a) => window.__bridge.sendToolInput({ arguments: a }), args);
          await frame.click('button[type=submit]');
          const ann = (ks.tools.find((t) => t.name === tool) || {}).annotations || {};
          if (ann.destructiveHint) await frame.click('.confirm .btn.danger');
          await frame.waitForSelector('#mcp-result .result');
        }
        await page.waitForTimeout(200);
        const h = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
        await page.evaluate((hh) => { document.querySelector('iframe').style.height = hh + 'px'; }, Math.min(h, 2000));
        await frame.evaluate(() => window.scrollTo(0, 0));
        const suffix = all || width !== 800 ? `-${width}` : '';
        const prefix = server !== 'kitchen-sink' ? `${server}-` : '';
        const file = path.join(out, `builtin-${prefix}${tool.replace(/_/g, '-')}${suffix}-${theme}.png`);
        await page.locator('iframe').screenshot({ path: file });
        console.log('wrote', path.relative(REPO, file));
        await page.close();
      }
    }
  } finally {
    await client.close();
  }
}
await env.close();
