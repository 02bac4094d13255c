// One image of many screenshots, for reviewing them by eye at once:
// `node browser/contact-sheet.mjs DIR FILTER OUT.png [COLUMNS] [WIDTH]` (from tests/) lays out
// every PNG in DIR whose name contains FILTER, named, COLUMNS across (4), each WIDTH px wide (300).
// Pairs with `node browser/screenshots.mjs --all DIR SERVER…`.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const [dirArg, filter = '', out, cols = '4', width = '300'] = process.argv.slice(2);
if (!dirArg || !out) {
  console.error('usage: node browser/contact-sheet.mjs DIR FILTER OUT.png [COLUMNS] [WIDTH]');
  process.exit(2);
}
const dir = path.resolve(dirArg);
const files = fs.readdirSync(dir).filter((f) => f.includes(filter) && f.endsWith('.png')).sort();
const esc = (s) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const html = `<body style="margin:0;background:#888;font:11px sans-serif"><div style="display:grid;grid-template-columns:repeat(${Number(cols)},${Number(width)}px);gap:4px;align-items:start">${files
  .map((f) => `<figure style="margin:0"><figcaption>${esc(f)}</figcaption><img src="${esc(encodeURI(f))}" style="width:${Number(width)}px"></figure>`)
  .join('')}</div></body>`;
const page = path.join(dir, '.contact-sheet.html');
fs.writeFileSync(page, html);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'] });
try {
  const p = await browser.newPage({ viewport: { width: Number(cols) * (Number(width) + 4), height: 800 } });
  await p.goto('file://' + page);
  await p.waitForLoadState('load');
  await p.screenshot({ path: path.resolve(out), fullPage: true });
} finally {
  await browser.close();
  fs.rmSync(page, { force: true });
}
console.log(`${files.length} screenshots in ${out}`);
