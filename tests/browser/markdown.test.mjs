// Descriptions in the result view's Markdown subset (book: reference/pages.md, "Markdown"): the
// tool's description in the header and each field's description, as a person sees them in the
// real host (lists are lists, code is code, a link asks the host to open its URL), and hostile
// strings (tests/fixtures/tools/hostile.json, extended with Markdown payloads) stay inert text:
// no image, no script, no javascript:/data: link, nothing posted, no dialog. Without scripts the
// header still shows the description as plain text.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, buildRust, EXAMPLES, REPO } from './lib.mjs';
import { tempDir } from './tmp.mjs';

buildRust();

const DESC = [
  'Searches the **catalog** for *items* and returns `json`.',
  '',
  'Options:',
  '- `fast` for a quick look',
  '- _deep_ for everything',
  '  - nested one',
  '',
  '1. first',
  '2. second',
  '',
  '```',
  'curl <https://x> | jq',
  '```',
  'Read [the docs](https://example.com/docs?a=1&b=2) or write to [us](mailto:help@example.com); see https://example.com/faq.',
  'Not links: [run](javascript:alert(1)) [file](file:///etc/passwd) ![logo](https://example.com/logo.png) <img src=x onerror=alert(2)> <b>raw</b>',
].join('\n');

const TOOL = {
  name: 'md_desc',
  title: 'Markdown descriptions',
  description: DESC,
  inputSchema: {
    type: 'object',
    properties: {
      q: { type: 'string', description: 'The query, for example `name:ada`.\n\n- one term\n- or [a phrase](https://example.com/phrases)\n\n[bad](javascript:alert(3))' },
      opts: { type: 'object', description: 'Search **options**: see <https://example.com/opts>.', properties: { limit: { type: 'integer', description: 'At most *this* many.' } } },
    },
    required: ['q'],
  },
};

let env, dir;
before(async () => {
  env = await launch();
  dir = tempDir('mcp-gen-ui-markdown-');
  const hostile = JSON.parse(fs.readFileSync(path.join(REPO, 'tests', 'fixtures', 'tools', 'hostile.json'), 'utf8'));
  const f = path.join(dir, 'tools.json');
  // The hostile tool under a plain name, so that its page's file name is known.
  fs.writeFileSync(f, JSON.stringify([TOOL, { ...hostile, name: 'hostile_md' }]));
  execFileSync(path.join(EXAMPLES, 'render-tool'), [f, dir]);
});
after(async () => { await env?.close(); });

async function open(file) {
  env.guestDir.current = dir;
  const o = await env.openApp(file);
  const dialogs = [];
  o.page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  return { ...o, dialogs };
}
const inFrame = (frame, fn, arg) => frame.evaluate(fn, arg);

describe('descriptions in Markdown', () => {
  test('the tool description: paragraphs, lists, code, emphasis, links through the host', async () => {
    const { page, frame, errors } = await open('md_desc.html');
    try {
      const d = await inFrame(frame, () => {
        const el = document.querySelector('.head .desc');
        const texts = (sel) => [...el.querySelectorAll(sel)].map((x) => x.textContent);
        return {
          tag: el.tagName, strong: texts('strong'), em: texts('em'), code: texts(':not(pre) > code'), pre: texts('pre code'),
          ul: texts(':scope > ul > li').length, nested: texts('ul ul > li'), ol: texts('ol > li'),
          links: [...el.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href')]),
          imgs: document.querySelectorAll('img').length, text: el.textContent,
        };
      });
      assert.equal(d.tag, 'DIV');
      assert.deepEqual(d.strong, ['catalog']);
      assert.deepEqual(d.em, ['items', 'deep']);
      assert.deepEqual(d.code, ['json', 'fast']);
      assert.deepEqual(d.pre, ['curl <https://x> | jq'], 'a code block keeps its text as written');
      assert.equal(d.ul, 2, 'a list of two items');
      assert.deepEqual(d.nested, ['nested one'], 'an indented item is a nested list');
      assert.deepEqual(d.ol, ['first', 'second']);
      assert.deepEqual(d.links, [
        ['the docs', 'https://example.com/docs?a=1&b=2'],
        ['us', 'mailto:help@example.com'],
        ['https://example.com/faq', 'https://example.com/faq'],
      ], 'only http, https and mailto links; the full stop is not part of the bare URL');
      // What is not a link stays as written, and an image is its alt text.
      assert.ok(d.text.includes('[run](javascript:alert(1))'), d.text);
      assert.ok(d.text.includes('[file](file:///etc/passwd)'), d.text);
      assert.ok(d.text.includes('logo') && !d.text.includes('logo.png'), 'an image shows its alt text');
      assert.ok(d.text.includes('<img src=x onerror=alert(2)> <b>raw</b>'), 'raw HTML is text');
      assert.equal(d.imgs, 0);

      await frame.getByRole('link', { name: 'the docs' }).click();
      await frame.getByRole('link', { name: 'us' }).click();
      await page.waitForFunction(() => window.__links.length === 2);
      assert.deepEqual(await page.evaluate(() => window.__links), ['https://example.com/docs?a=1&b=2', 'mailto:help@example.com']);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test("a field's description: a list, code and a link in its help text, still the field's description", async () => {
    const { page, frame, errors } = await open('md_desc.html');
    try {
      const help = await inFrame(frame, () => {
        const el = document.getElementById([...document.querySelectorAll('label')].find((l) => l.firstChild.textContent === 'Q').htmlFor);
        const h = document.getElementById(el.getAttribute('aria-describedby').split(' ')[0]);
        return { items: [...h.querySelectorAll('li')].map((x) => x.textContent), code: h.querySelector('code')?.textContent, text: h.textContent, links: h.querySelectorAll('a').length };
      });
      assert.deepEqual(help.items, ['one term', 'or a phrase']);
      assert.equal(help.code, 'name:ada');
      assert.equal(help.links, 1, 'the javascript: link is text');
      assert.ok(help.text.includes('[bad](javascript:alert(3))'));
      // A group's description (the object field) too.
      const group = await inFrame(frame, () => {
        const fs = [...document.querySelectorAll('legend')].find((l) => l.firstChild.textContent === 'Opts')?.parentElement;
        const help = fs && fs.querySelector('.help');
        return help && { strong: help.querySelector('strong')?.textContent, link: help.querySelector('a')?.getAttribute('href') };
      });
      assert.deepEqual(group, { strong: 'options', link: 'https://example.com/opts' });
      await frame.getByRole('link', { name: 'a phrase' }).click();
      await page.waitForFunction(() => window.__links.length === 1);
      assert.deepEqual(await page.evaluate(() => window.__links), ['https://example.com/phrases']);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('hostile descriptions stay inert text', async () => {
    const { page, frame, errors, dialogs } = await open('hostile_md.html');
    try {
      const s = await inFrame(frame, () => ({
        imgs: document.querySelectorAll('img').length,
        scripts: [...document.querySelectorAll('script')].filter((x) => x.type !== 'application/json').length,
        bold: document.querySelectorAll('b').length,
        hrefs: [...document.querySelectorAll('a')].map((a) => a.getAttribute('href')),
        desc: document.querySelector('.head .desc').textContent,
        help: document.querySelector('.fld .help')?.textContent || '',
      }));
      assert.equal(s.imgs, 0, 'no image');
      assert.equal(s.bold, 0, 'no <b> from a description');
      assert.equal(s.scripts, 2, "only the page's own two scripts");
      assert.deepEqual(s.hrefs, [], 'no link: none of them is http, https or mailto');
      for (const t of ['[click](javascript:alert(6))', '<img src=x onerror=alert(8)>', '<javascript:alert(10)>', '<script>alert(11)</script>', 'pic']) {
        assert.ok(s.desc.includes(t), `${t} is shown as text: ${s.desc}`);
      }
      for (const t of ['<b>bold?</b>', '[j](javascript:alert(12))', '<img src=x onerror=alert(13)>']) assert.ok(s.help.includes(t), `${t} in ${s.help}`);
      await page.waitForTimeout(200);
      assert.deepEqual(dialogs, []);
      assert.deepEqual(await page.evaluate(() => window.__raw), [], 'no injected script posted anything');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('without scripts the header shows the description as written', async () => {
    const ctx = await env.browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await ctx.newPage();
      await page.goto(`${env.base}/guest/md_desc.html`);
      assert.equal(await page.textContent('.head p.desc'), DESC);
      assert.equal(await page.locator('.head a, .head li').count(), 0);
    } finally { await ctx.close(); }
  });
});
