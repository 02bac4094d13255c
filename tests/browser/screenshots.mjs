// Screenshots of real generated UIs for the README and the book (light and dark), taken in the
// same AppBridge host the tests use. `node browser/screenshots.mjs [OUT_DIR]` (from tests/).
import path from 'node:path';
import fs from 'node:fs';
import { launch, buildRust, exampleServer, generate, connect, REPO } from './lib.mjs';

buildRust();
const out = path.resolve(process.argv[2] || path.join(REPO, 'book', 'src', 'images'));
fs.mkdirSync(out, { recursive: true });
const env = await launch();
const cmd = exampleServer('kitchen-sink');
const ks = await generate(cmd, 'shots');
const client = await connect(cmd);
env.guestDir.current = ks.dir;
const SHOTS = [
  ['sales_series', { months: 12 }],
  ['list_users', { limit: 8 }],
  ['nested', null],
  ['all_types', null],
];
try {
  for (const theme of ['light', 'dark']) {
    for (const [tool, args] of SHOTS) {
      const { page, frame } = await env.openApp(`${tool}.html`, {
        onCall: (p) => client.callTool({ name: p.name, arguments: p.arguments }),
        hostContext: { theme },
      });
      await page.setViewportSize({ width: 820, height: 900 });
      if (args) {
        await page.evaluate((a) => window.__bridge.sendToolInput({ arguments: a }), args);
        await frame.click('button[type=submit]');
        await frame.waitForSelector('#mcp-result .result');
      }
      await page.waitForTimeout(200);
      const h = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
      await page.evaluate((hh) => { document.querySelector('iframe').style.height = hh + 'px'; }, Math.min(h, 1400));
      const file = path.join(out, `builtin-${tool.replace(/_/g, '-')}-${theme}.png`);
      await page.locator('iframe').screenshot({ path: file });
      console.log('wrote', path.relative(REPO, file));
      await page.close();
    }
  }
} finally {
  await client.close();
  await env.close();
}
