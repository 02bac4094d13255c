// Screenshots of real generated UIs in the same AppBridge host the tests use, light and dark.
// `node browser/screenshots.mjs [OUT_DIR]` (from tests/) writes the book's images;
// `node browser/screenshots.mjs --all OUT_DIR` shoots every kitchen-sink tool (run with its sample
// input) at 360 px and 800 px, light and dark, for a visual review.
import path from 'node:path';
import fs from 'node:fs';
import { launch, buildRust, exampleServer, generate, connect, sample, REPO } from './lib.mjs';

buildRust();
const all = process.argv[2] === '--all';
const out = path.resolve(process.argv[all ? 3 : 2] || path.join(REPO, 'book', 'src', 'images'));
fs.mkdirSync(out, { recursive: true });
const env = await launch();
const cmd = exampleServer('kitchen-sink');
const ks = await generate(cmd, 'shots');
const client = await connect(cmd);
env.guestDir.current = ks.dir;
// [tool, arguments to run with (null: the form only), frame width]
const SHOTS = all
  ? ks.tools.flatMap((t) => [[t.name, sample(t.inputSchema || {}), 360], [t.name, sample(t.inputSchema || {}), 800]])
  : [
    ['sales_series', { months: 12 }, 800],
    ['list_users', { limit: 8 }, 800],
    ['nested', null, 800],
    ['all_types', null, 800],
    ['all_types', null, 360],
  ];
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
      const file = path.join(out, `builtin-${tool.replace(/_/g, '-')}${suffix}-${theme}.png`);
      await page.locator('iframe').screenshot({ path: file });
      console.log('wrote', path.relative(REPO, file));
      await page.close();
    }
  }
} finally {
  await client.close();
  await env.close();
}
