// The builtin UI as people meet it in a real host: values that leave the form valid for their
// format (times with an offset), records shown as tables and series as charts, variant switching
// that keeps what was typed, a field budget for exponential $ref graphs, readable labels, numbers
// and dates for the host's locale and time zone, layout, accessible chart points, loading and
// error states. Real chromium, the real AppBridge, the default MCP Apps CSP.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, buildRust, EXAMPLES, REPO, ajv } from './lib.mjs';
import { tempDir } from './tmp.mjs';

buildRust();
let env, dir, tools;

before(async () => {
  env = await launch();
  dir = tempDir('mcp-gen-ui-cases-');
  const src = path.join(REPO, 'tests/fixtures/ui-cases.json');
  tools = JSON.parse(fs.readFileSync(src, 'utf8'));
  execFileSync(path.join(EXAMPLES, 'render-tool'), [src, dir]);
});
after(async () => { await env?.close(); });

const tool = (name) => tools.find((t) => t.name === name);
const calls = (page) => page.evaluate(() => window.__calls);
const text = (frame, sel) => frame.evaluate((s) => (document.querySelector(s) || {}).textContent || '', sel);
const ctx = (extra) => ({ theme: 'light', platform: 'web', locale: 'en-US', ...extra });

async function open(file, opts = {}) {
  env.guestDir.current = dir;
  return env.openApp(file, opts);
}
async function runWith(page, frame, result) {
  await page.evaluate((r) => { window.__next = r; }, result);
  await frame.click('button[type=submit]');
  await page.waitForFunction(() => window.__calls.length > 0);
  await frame.waitForSelector('#mcp-result .result');
}
const answer = (r) => ({ onCall: async () => r });

describe('formats', () => {
  test('time goes out as RFC 3339 full-time with the host time zone offset; date-time names its zone', async () => {
    const { page, frame, errors } = await open('book_slot.html', { hostContext: ctx({ timeZone: 'Asia/Kolkata' }) });
    try {
      await frame.getByLabel('Start time').fill('10:30');
      await frame.getByLabel('Meeting at').fill('2024-05-01T10:00');
      await frame.getByLabel('Customer ID').fill('7');
      // The note under each field says which zone, and for times which date's offset applies.
      const notes = await frame.evaluate(() => [...document.querySelectorAll('.tz')].map((x) => x.textContent));
      assert.equal(notes.length, 2);
      assert.match(notes[0], /Asia\/Kolkata.*UTC\+05:30.*today's date/);
      assert.match(notes[1], /Asia\/Kolkata.*UTC/);
      await frame.click('button[type=submit]');
      await page.waitForFunction(() => window.__calls.length === 1);
      const a = (await calls(page))[0].arguments;
      assert.equal(a.start_time, '10:30:00+05:30');
      assert.equal(a.meeting_at, '2024-05-01T04:30:00.000Z');
      const v = ajv().compile(tool('book_slot').inputSchema);
      assert.ok(v(a), 'a validating server accepts it: ' + JSON.stringify(v.errors));
      // Pre-filled values with another offset are shown as wall-clock time of the host's zone.
      await page.evaluate(() => window.__bridge.sendToolInput({ arguments: { start_time: '08:00:00Z', meeting_at: '2024-05-01T00:00:00Z', customer_id: 3 } }));
      await frame.waitForFunction(() => document.querySelector('input[type=time]').value !== '');
      assert.equal(await frame.getByLabel('Start time').inputValue(), '13:30:00');
      assert.match(await frame.getByLabel('Meeting at').inputValue(), /^2024-05-01T05:30(:00)?$/);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a zone with daylight saving time uses the offset of today, in the zone', async () => {
    const { page, frame } = await open('book_slot.html', { hostContext: ctx({ timeZone: 'America/New_York' }) });
    try {
      await frame.getByLabel('Start time').fill('09:00');
      await frame.getByLabel('Meeting at').fill('2024-07-01T09:00');
      await frame.getByLabel('Customer ID').fill('7');
      await frame.click('button[type=submit]');
      await page.waitForFunction(() => window.__calls.length === 1);
      const a = (await calls(page))[0].arguments;
      const off = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', timeZoneName: 'longOffset' }).format(new Date()).replace(/.*GMT/, '');
      assert.equal(a.start_time, '09:00:00' + off);
      assert.equal(a.meeting_at, '2024-07-01T13:00:00.000Z', 'July is daylight time (UTC-4)');
    } finally { await page.close(); }
  });
});

describe('form', () => {
  test('labels from property names; short fields side by side; a pattern string is one line; readable at 360 px', async () => {
    const { page, frame, errors } = await open('book_slot.html');
    try {
      const labels = await frame.evaluate(() => [...document.querySelectorAll('label')].map((l) => l.textContent.replace(' *', '')));
      for (const l of ['Start time', 'Meeting at', 'Room code', 'Customer ID', 'Seats', 'Priority', 'Notify', 'Notes']) assert.ok(labels.includes(l), l + ' in ' + labels);
      assert.equal(await frame.evaluate(() => document.getElementById(document.querySelector('.fld .help') && [...document.querySelectorAll('label')].find((l) => l.textContent === 'Room code').htmlFor).tagName), 'INPUT');
      const top = (l) => frame.evaluate((t) => { const lab = [...document.querySelectorAll('label')].find((x) => x.textContent.replace(' *', '') === t); return lab.closest('.fld').getBoundingClientRect().top; }, l);
      assert.equal(await top('Customer ID'), await top('Seats'), 'two numbers share a row at 800 px');
      assert.notEqual(await top('Notes'), await top('Room code'));
      await page.evaluate(() => { document.querySelector('iframe').style.width = '360px'; });
      await frame.waitForFunction(() => document.documentElement.clientWidth <= 360);
      const over = await frame.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(over <= 0, 'no horizontal scrolling at 360 px (' + over + ' px over)');
      assert.notEqual(await top('Customer ID'), await top('Seats'), 'one column at 360 px');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a map of any values (dict[str, Any]) is key/value rows: JSON literals are values, the rest is text', async () => {
    const { page, frame, errors } = await open('insert_row.html', answer({ content: [{ type: 'text', text: 'inserted' }] }));
    try {
      assert.equal(await frame.locator('textarea').count(), 0, 'no JSON editor');
      await frame.getByLabel('Table').fill('customers');
      const rows = [['name', 'Ada'], ['age', '36'], ['vip', 'true'], ['tags', '["a", "b"]'], ['zip', '007'], ['note', ''], ['quoted', '"42"']];
      for (const [k, v] of rows) {
        await frame.getByRole('button', { name: '+ Add entry' }).click();
        await frame.getByLabel('Key').last().fill(k);
        await frame.getByLabel('Value').last().fill(v);
      }
      // A row left empty is ignored.
      await frame.getByRole('button', { name: '+ Add entry' }).click();
      await runWith(page, frame);
      const args = (await calls(page))[0].arguments;
      assert.deepEqual(args, { table: 'customers', values: { name: 'Ada', age: 36, vip: true, tags: ['a', 'b'], zip: '007', note: '', quoted: '42' } });
      const v = ajv().compile(tool('insert_row').inputSchema);
      assert.ok(v(args), JSON.stringify(v.errors));
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a map value that opens like JSON but is not says so and is not sent', async () => {
    const { page, frame } = await open('insert_row.html', answer({ content: [{ type: 'text', text: 'inserted' }] }));
    try {
      await frame.getByLabel('Table').fill('customers');
      await frame.getByRole('button', { name: '+ Add entry' }).click();
      await frame.getByLabel('Key').last().fill('tags');
      await frame.getByLabel('Value').last().fill('["a", ');
      await frame.click('button[type=submit]');
      await frame.waitForSelector('.err:not([hidden])');
      assert.match(await frame.locator('.err:not([hidden])').first().textContent(), /Not valid JSON/);
      assert.equal((await calls(page)).length, 0);
    } finally { await page.close(); }
  });

  test('switching variants keeps shared fields; switching back restores what was typed', async () => {
    const { page, frame, errors } = await open('pay.html');
    try {
      const kind = frame.getByLabel('Method — kind');
      await kind.selectOption({ label: 'Card' });
      await frame.getByLabel('Amount').fill('12.5');
      await frame.getByLabel('Currency').fill('EUR');
      await frame.getByLabel('Card number').fill('4111');
      await kind.selectOption({ label: 'Bank transfer' });
      assert.equal(await frame.getByLabel('Amount').inputValue(), '12.5', 'shared field kept');
      assert.equal(await frame.getByLabel('Currency').inputValue(), 'EUR');
      await frame.getByLabel('IBAN').fill('DE00');
      await kind.selectOption({ label: 'Card' });
      assert.equal(await frame.getByLabel('Card number').inputValue(), '4111', 'the variant keeps its own values');
      await frame.click('button[type=submit]');
      await page.waitForFunction(() => window.__calls.length === 1);
      assert.deepEqual((await calls(page))[0].arguments, { method: { amount: 12.5, currency: 'EUR', card_number: '4111' } });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('array rows from the keyboard: add with Enter, remove keeps focus in the list', async () => {
    const { page, frame, errors } = await open('tag_list.html');
    try {
      for (const v of ['a', 'b', 'c']) {
        await frame.getByRole('button', { name: '+ Add item' }).focus();
        await page.keyboard.press('Enter');
        await page.keyboard.type(v);
      }
      await frame.getByRole('button', { name: 'Remove item 2' }).focus();
      await page.keyboard.press('Enter');
      assert.equal(await frame.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Remove item 2', 'focus on the next row');
      await frame.getByRole('button', { name: 'Remove item 2' }).focus();
      await page.keyboard.press('Enter');
      assert.equal(await frame.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Remove item 1', 'then on the previous one');
      await frame.click('button[type=submit]');
      await page.waitForFunction(() => window.__calls.length === 1);
      assert.deepEqual((await calls(page))[0].arguments, { tags: ['a'] });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('an exponential $ref DAG falls back to the JSON editor instead of freezing', async () => {
    const t0 = Date.now();
    const { page, frame, errors } = await open('dag_tree.html');
    try {
      assert.ok(Date.now() - t0 < 10000, 'the page opens');
      assert.match(await text(frame, '#mcp-form'), /more than 600 fields/);
      assert.ok(await frame.evaluate(() => document.querySelectorAll('#mcp-form input,#mcp-form select,#mcp-form textarea').length) < 5);
      await frame.getByLabel('Input (JSON)').fill('{"root": {"left": {"right": {}}}}');
      await frame.click('button[type=submit]');
      await page.waitForFunction(() => window.__calls.length === 1);
      assert.deepEqual((await calls(page))[0].arguments, { root: { left: { right: {} } } });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});

const ORDERS = [
  { id: 'ord_1042', customer_name: 'Ada Lovelace', status: 'paid', amount: 1299.5, created: '2024-05-03' },
  { id: 'ord_1043', customer_name: 'Alan Turing', status: 'refunded', amount: 18.25, created: '2024-05-01' },
  { id: 'ord_1044', customer_name: 'Grace Hopper', status: 'open', amount: 15420, created: '2024-05-02' },
];

describe('result view', () => {
  test('a list of records is a table (ids, names first-class); numbers and dates in the host locale, raw on hover', async () => {
    const { page, frame, errors } = await open('search_orders.html', { ...answer({ content: [], structuredContent: { orders: ORDERS } }), hostContext: ctx({ locale: 'de-DE', timeZone: 'Europe/Berlin' }) });
    try {
      await runWith(page, frame);
      assert.equal(await frame.locator('#mcp-result svg').count(), 0, 'no chart');
      assert.equal(await frame.locator('#mcp-result table').count(), 1);
      const heads = await frame.evaluate(() => [...document.querySelectorAll('th')].map((x) => x.textContent));
      assert.deepEqual(heads, ['ID', 'Customer name', 'Status', 'Amount', 'Created']);
      const cell = frame.locator('tbody tr').first().locator('td').nth(3);
      assert.equal(await cell.textContent(), '1299,5');
      assert.equal(await frame.locator('tbody tr').nth(2).locator('td').nth(3).textContent(), '15.420');
      assert.equal(await frame.locator('tbody tr').nth(2).locator('td span').last().getAttribute('title'), '15420');
      const date = frame.locator('tbody tr').first().locator('time');
      assert.equal(await date.getAttribute('datetime'), '2024-05-03');
      assert.equal(await date.textContent(), '03.05.2024');
      // Keyboard: the table scrolls and sorts from the keyboard.
      assert.equal(await frame.locator('.scroll').getAttribute('tabindex'), '0');
      await frame.getByRole('button', { name: 'Amount' }).focus();
      await page.keyboard.press('Enter');
      assert.equal(await frame.getAttribute('th:nth-child(4)', 'aria-sort'), 'ascending');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a short list of short values is one line of chips; a list of long texts stays a list', async () => {
    const long = ['a sentence that is clearly longer than forty characters, one', 'a sentence that is clearly longer than forty characters, two'];
    const { page, frame, errors } = await open('search_orders.html', { ...answer({ content: [], structuredContent: { columns: ['id', 'customer_id', 'product', 'total'], notes: long } }), hostContext: ctx() });
    try {
      await page.evaluate(() => { document.querySelector('iframe').style.width = '800px'; });
      await runWith(page, frame);
      const lists = await frame.evaluate(() => [...document.querySelectorAll('#mcp-result ul.list')].map((u) => ({
        chips: u.classList.contains('chips'),
        items: [...u.children].map((li) => li.textContent),
        tops: [...new Set([...u.children].map((li) => Math.round(li.getBoundingClientRect().top)))].length,
      })));
      assert.deepEqual(lists.map((l) => [l.chips, l.items]), [[true, ['id', 'customer_id', 'product', 'total']], [false, long]]);
      assert.equal(lists[0].tops, 1, 'the chips share one line');
      assert.equal(lists[1].tops, 2, 'long texts stay one per line');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a record shows short values as cards side by side and a long text across the whole row', async () => {
    const env_ = { HOME: '/root', SHELL: '/bin/bash', PATH: '/root/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', TERM: 'xterm' };
    const { page, frame, errors } = await open('search_orders.html', { ...answer({ content: [], structuredContent: env_ }), hostContext: ctx() });
    try {
      await page.evaluate(() => { document.querySelector('iframe').style.width = '800px'; });
      await runWith(page, frame);
      const boxes = await frame.evaluate(() => Object.fromEntries([...document.querySelectorAll('.cards > .kv')].map((k) => {
        const r = k.getBoundingClientRect();
        return [k.querySelector('dt').textContent, { span: k.classList.contains('span'), w: r.width, top: r.top, h: r.height }];
      })));
      const grid = await frame.evaluate(() => document.querySelector('.cards').getBoundingClientRect().width);
      assert.equal(boxes.PATH.span, true);
      assert.ok(Math.abs(boxes.PATH.w - grid) < 2, `the long value spans the row (${boxes.PATH.w} of ${grid})`);
      for (const k of ['HOME', 'SHELL', 'TERM']) {
        assert.equal(boxes[k].span, false, k);
        assert.ok(boxes[k].w < grid / 2, `${k} is a card, not a row`);
      }
      // The short cards share a row and stay short: the long text no longer stretches them.
      assert.equal(boxes.HOME.top, boxes.SHELL.top);
      assert.ok(boxes.HOME.h < 80, `card height ${boxes.HOME.h}`);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a real series is a chart sorted by its x, with round ticks and named points; the table is one click away', async () => {
    const rows = [
      { date: '2024-05-03', revenue: 1029.5, orders: 12 },
      { date: '2024-05-01', revenue: 880.25, orders: 9 },
      { date: '2024-05-02', revenue: 1210, orders: 15 },
      { date: '2024-05-04', revenue: 640, orders: 7 },
    ];
    const { page, frame, errors } = await open('daily_sales.html', answer({ content: [], structuredContent: { days: rows } }));
    try {
      await runWith(page, frame);
      await frame.waitForSelector('svg.chart');
      const ticks = await frame.evaluate(() => [...document.querySelectorAll('svg.chart text.axis')].filter((t) => t.getAttribute('text-anchor') === 'end' && Number(t.getAttribute('x')) < 60).map((t) => t.textContent));
      for (const t of ticks) {
        const v = Number(t.replace(/,/g, ''));
        const m = v / Math.pow(10, Math.floor(Math.log10(Math.abs(v) || 1)));
        assert.ok(v === 0 || [1, 2, 5, 10].some((k) => Math.abs((v / k) - Math.round(v / k)) < 1e-9) || [1, 2, 5].includes(Math.round(m)), 'round tick ' + t);
      }
      assert.ok(!ticks.includes('1029.5'));
      assert.ok(ticks.length >= 3, 'ticks: ' + ticks);
      assert.notEqual(await frame.locator('svg.chart').getAttribute('role'), 'img', 'points stay visible to screen readers');
      const names = await frame.evaluate(() => [...document.querySelectorAll('svg.chart .pt')].map((c) => c.getAttribute('aria-label')));
      assert.equal(names.length, 8);
      assert.match(names[0], /^Revenue, Date May 1, 2024: 880\.25$/, 'sorted by date: ' + names[0]);
      assert.match(names[3], /May 4, 2024: 640/);
      await frame.getByRole('button', { name: 'Table' }).click();
      await frame.waitForSelector('table');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('loading state on Run; the server\'s error message with a retry', async () => {
    let n = 0;
    const onCall = async () => {
      n++;
      await new Promise((r) => setTimeout(r, 400));
      return n === 1 ? { isError: true, content: [{ type: 'text', text: 'Upstream timeout: orders DB' }] } : { content: [], structuredContent: { orders: [] } };
    };
    const { page, frame, errors } = await open('search_orders.html', { onCall });
    try {
      await frame.click('button[type=submit]');
      assert.equal(await frame.locator('button[type=submit]').textContent(), 'Running…');
      assert.ok(await frame.locator('button[type=submit]').isDisabled());
      assert.equal(await frame.locator('#mcp-result').getAttribute('aria-busy'), 'true');
      await frame.waitForSelector('.error[role=alert]');
      assert.match(await text(frame, '.error'), /Upstream timeout: orders DB/);
      await frame.getByRole('button', { name: 'Retry' }).click();
      await page.waitForFunction(() => window.__calls.length === 2);
      await frame.waitForSelector('text=No items.');
      assert.equal(await frame.locator('button[type=submit]').textContent(), 'Run');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});
