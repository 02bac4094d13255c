// The form renders what the schema says (book: reference/pages.md, "The form renders what the
// schema says", "Files"): schemas shaped the way a public form library's examples and
// popular servers write them, generated with the real generator (render-tool) and loaded in the
// real AppBridge under the default CSP. Each test checks what the person sees and what a Run sends
// (valid against the tool's schema, by Ajv for its draft), and that the page logs no error.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import Ajv07 from 'ajv';
import addFormats from 'ajv-formats';
import { launch, buildRust, ajv, EXAMPLES } from './lib.mjs';
import { tempDir } from './tmp.mjs';

const obj = (properties, more = {}) => ({ type: 'object', properties, ...more });
const TOOLS = {
  // rjsf's if/then/else example: two ifs in allOf, each adding its own fields.
  animal: obj({ animal: { enum: ['Cat', 'Fish'] } }, {
    allOf: [
      { if: { properties: { animal: { const: 'Cat' } } }, then: { properties: { food: { type: 'string', enum: ['meat', 'grass', 'fish'] } }, required: ['food'] } },
      { if: { properties: { animal: { const: 'Fish' } } }, then: { properties: { food: { type: 'string', enum: ['insect', 'worms'] }, water: { type: 'string', enum: ['lake', 'sea'] } }, required: ['food', 'water'] } },
      { required: ['animal'] },
    ],
  }),
  party: obj({ kind: { type: 'string', enum: ['person', 'company'] } }, {
    required: ['kind'],
    if: { properties: { kind: { const: 'company' } }, required: ['kind'] },
    then: { properties: { vat: { type: 'string', title: 'VAT' } }, required: ['vat'] },
    else: { properties: { age: { type: 'integer' } } },
  }),
  // rjsf's draft-07 dependencies, both forms, and their 2020-12 spellings.
  card_schema: obj({ name: { type: 'string' }, credit_card: { type: 'number' } }, {
    required: ['name'],
    dependencies: { credit_card: { properties: { billing_address: { type: 'string' } }, required: ['billing_address'] } },
  }),
  card_list: obj({ name: { type: 'string' }, credit_card: { type: 'number' }, billing_address: { type: 'string' } }, {
    required: ['name'], dependencies: { credit_card: ['billing_address'] },
  }),
  card_2020: obj({ name: { type: 'string' }, credit_card: { type: 'number' }, billing_address: { type: 'string' } }, {
    required: ['name'], dependentRequired: { credit_card: ['billing_address'] },
    dependentSchemas: { billing_address: { properties: { zip: { type: 'string' } }, required: ['zip'] } },
  }),
  // JSON Forms' "Conditional Schema Compositions" shape: a root anyOf whose one branch is an
  // if/then/else (no other variant in the schema).
  booking: obj({ title: { type: 'string', minLength: 1 }, repeat: { type: 'string', enum: ['Once', 'Weekly'] } }, {
    required: ['title'],
    anyOf: [{
      if: { properties: { repeat: { const: 'Weekly' } }, required: ['repeat'] },
      then: { properties: { weekday: { enum: ['Mon', 'Tue'] } }, required: ['weekday'] },
      else: { properties: { date: { type: 'string', format: 'date' } } },
    }],
  }),
  // A root conditional and a root oneOf whose branches hold conditionals of their own.
  delivery: obj({ gift: { type: 'boolean' } }, {
    if: { properties: { gift: { const: true } }, required: ['gift'] },
    then: { properties: { note: { type: 'string' } }, required: ['note'] },
    oneOf: [
      {
        title: 'Ship', properties: { method: { enum: ['post', 'courier'] } }, required: ['method'],
        if: { properties: { method: { const: 'courier' } } }, then: { properties: { phone: { type: 'string' } }, required: ['phone'] }, else: { properties: { box: { type: 'string' } } },
      },
      { title: 'Pickup', properties: { store: { type: 'string' } }, required: ['store'] },
    ],
  }),
  // Checks only the whole-schema validator makes (not), inside array rows and map entries.
  order: obj({
    items: { type: 'array', items: obj({ sku: { type: 'string' }, qty: { type: 'integer', not: { const: 13 } } }, { required: ['sku'], unevaluatedProperties: false }) },
    tags: { type: 'array', items: { type: 'string', not: { const: 'x' } } },
    limits: { type: 'object', patternProperties: { '^[a-z]+$': { type: 'integer', not: { const: 0 } } }, unevaluatedProperties: false },
  }),
  headers: obj({
    headers: {
      type: 'object', patternProperties: { '^x-': { type: 'string' }, '^n-': { type: 'integer' } },
      additionalProperties: false, propertyNames: { maxLength: 10 },
    },
  }),
  // A free-form object inside anyOf (a popular server's page `properties` argument).
  page_props: obj({ parent: { type: 'string' }, properties: { anyOf: [{ type: 'object' }, { type: 'string' }] } }, { required: ['parent', 'properties'] }),
  files: obj({
    photo: { type: 'string', contentEncoding: 'base64', contentMediaType: 'image/png' },
    doc: { type: 'string', format: 'data-url' },
    pics: { type: 'array', items: { type: 'string', format: 'data-url', contentMediaType: 'image/*' } },
  }),
  read_only: obj({ id: { type: 'string', readOnly: true, default: 'abc' }, stamp: { type: 'string', readOnly: true }, note: { type: 'string' } }),
  examples: obj({ city: { type: 'string', examples: ['Paris', 'Berlin', 'Tokyo'] }, n: { type: 'integer', examples: [10, 20] } }),
  tuple: obj({
    point: { type: 'array', prefixItems: [{ type: 'number', title: 'Lat' }, { type: 'number', title: 'Lon' }], items: false, minItems: 2 },
    row: { type: 'array', prefixItems: [{ type: 'string', title: 'Name' }, { type: 'integer', title: 'Count' }], items: { type: 'boolean' } },
  }, { required: ['point'] }),
  branch_defaults: obj({
    a: { allOf: [{ type: 'integer', default: 5 }] },
    c: { $ref: '#/$defs/C' },
    shape: { oneOf: [{ title: 'Circle', type: 'object', properties: { r: { type: 'number', default: 1 } }, required: ['r'] }, { title: 'Square', type: 'object', properties: { side: { type: 'number' } }, required: ['side'] }] },
  }, { allOf: [{ properties: { b: { type: 'string', default: 'y' } } }], required: ['shape'], $defs: { C: { type: 'string', default: 'x' } } }),
  names: obj({
    by_const: { oneOf: [{ type: 'object', properties: { kind: { const: 'cat' }, lives: { type: 'integer' } } }, { type: 'object', properties: { kind: { const: 'dog' }, bark: { type: 'string' } } }] },
    by_required: { anyOf: [{ type: 'object', properties: { email: { type: 'string' } }, required: ['email'] }, { type: 'object', properties: { phone_number: { type: 'string' } }, required: ['phone_number'] }] },
    same: { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'string' } } }] },
    color: { oneOf: [{ title: 'Red', enum: ['r'] }, { title: 'Blue', enum: ['b'] }] },
  }),
};
const DRAFT07 = new Set(['card_schema', 'card_list']);
// Shapes that must load clean, each with the arguments its Run sends.
const SHAPES = {
  defs_only: [{ type: 'object', properties: {}, $defs: { A: { type: 'object', properties: { x: { type: 'array', items: { type: 'string', enum: ['a'] } }, t: { type: 'string', format: 'date-time' } } } } }, {}],
  empty_allof: [obj({ a: { allOf: [] }, b: { type: 'string' } }), {}],
  bool_schemas: [obj({ t: true, f: false, s: { type: 'string', default: 's' } }), { s: 's' }],
  recursive: [obj({ node: { $ref: '#/$defs/N' } }, { $defs: { N: obj({ v: { type: 'string' }, kids: { type: 'array', items: { $ref: '#/$defs/N' } }, next: { $ref: '#/$defs/N' } }) } }), {}],
  ref_siblings: [obj({ c: { $ref: '#/$defs/C', description: 'Which colour', default: 'red' } }, { $defs: { C: { type: 'string', enum: ['red', 'blue'] } } }), { c: 'red' }],
  true_root: [true, {}],
  false_branch: [obj({ a: { type: 'string', default: 'z' } }, { if: false, then: { required: ['b'] }, else: true, not: { required: ['nope'] } }), { a: 'z' }],
};

buildRust();
let env, dir;
const a07 = new Ajv07({ strict: false, allErrors: true });
addFormats(a07);
const a20 = ajv();

before(async () => {
  env = await launch();
  dir = tempDir('mcp-gen-ui-schema-forms-');
  const tools = Object.entries(TOOLS).map(([name, inputSchema]) => ({ name, inputSchema, annotations: { readOnlyHint: true } }));
  for (const [name, [inputSchema]] of Object.entries(SHAPES)) tools.push({ name, inputSchema, annotations: { readOnlyHint: true } });
  // A small cap, as `[generate] max_file_bytes = 4096` gives every page.
  tools.find((t) => t.name === 'files')['x-hints'] = { max_file_bytes: 4096 };
  fs.writeFileSync(path.join(dir, 'tools.json'), JSON.stringify(tools));
  execFileSync(path.join(EXAMPLES, 'render-tool'), [path.join(dir, 'tools.json'), dir]);
});
after(async () => { await env?.close(); });

const calls = (page) => page.evaluate(() => window.__calls);
const input = (page, args) => page.evaluate((a) => window.__bridge.sendToolInput({ arguments: a }), args);
async function open(name) {
  env.guestDir.current = dir;
  return env.openApp(name + '.html', { onCall: async () => ({ content: [{ type: 'text', text: 'ok' }] }) });
}
// A control by its label, exactly (a required field's label ends with an aria-hidden "*").
const L = (scope, label) => scope.getByLabel(new RegExp('^' + label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '( \\*)?$'));
const shown = async (frame, label) => (await L(frame, label).count()) > 0;
// Clicks Run; returns the arguments of call n (checked against the schema), or null when the Run
// was blocked (no new call), with the inline messages shown.
async function run(page, frame, tool, n = 1) {
  await frame.click('button[type=submit]');
  const blocked = await Promise.race([
    page.waitForFunction((k) => window.__calls.length >= k, n, { timeout: 10000 }).then(() => false, () => 'neither'),
    frame.waitForSelector('#mcp-status.bad', { timeout: 10000 }).then(() => true, () => 'neither'),
  ]);
  assert.notEqual(blocked, 'neither', 'the Run either sends or says what to fix');
  await frame.evaluate(() => { document.getElementById('mcp-status').className = 'status'; });
  if (blocked) return null;
  const sent = (await calls(page))[n - 1].arguments;
  const schema = TOOLS[tool] || SHAPES[tool][0];
  // (An empty allOf is a schema Ajv refuses to compile: the page still takes it.)
  const v = tool === 'empty_allof' ? () => true : (DRAFT07.has(tool) ? a07 : a20).compile(schema === true ? {} : schema);
  assert.ok(v(sent), `${tool}: ${JSON.stringify(sent)}: ${JSON.stringify(v.errors)}`);
  return sent;
}
const messages = (frame) => frame.evaluate(() => [...document.querySelectorAll('.err:not([hidden])')].map((e) => e.textContent));

describe('conditional fields', () => {
  test('if/then/else in allOf: the active branch\'s fields appear and go, and only they are sent', async () => {
    const { page, frame, errors } = await open('animal');
    try {
      await L(frame, 'Animal').selectOption({ label: 'Cat' });
      assert.ok(await shown(frame, 'Food'));
      assert.ok(!(await shown(frame, 'Water')), 'the Fish branch is not shown for a cat');
      assert.deepEqual(await L(frame, 'Food').evaluate((e) => [...e.options].map((o) => o.textContent)), ['— choose —', 'meat', 'grass', 'fish']);
      assert.equal(await run(page, frame, 'animal'), null, 'food is required for a cat');
      assert.match((await messages(frame)).join(' '), /required/);
      await L(frame, 'Food').selectOption({ label: 'meat' });
      assert.deepEqual(await run(page, frame, 'animal'), { animal: 'Cat', food: 'meat' });
      await L(frame, 'Animal').selectOption({ label: 'Fish' });
      assert.ok(await shown(frame, 'Water'));
      assert.deepEqual(await L(frame, 'Food').evaluate((e) => [...e.options].map((o) => o.textContent)), ['— choose —', 'insect', 'worms']);
      assert.equal(await run(page, frame, 'animal', 2), null, 'the fish fields are required');
      await L(frame, 'Food').selectOption({ label: 'worms' });
      await L(frame, 'Water').selectOption({ label: 'sea' });
      assert.deepEqual(await run(page, frame, 'animal', 2), { animal: 'Fish', food: 'worms', water: 'sea' });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('if/then/else: what was typed in a branch that became inactive is not sent; tool-input goes out as given', async () => {
    const { page, frame, errors } = await open('party');
    try {
      await L(frame, 'Kind').selectOption({ label: 'company' });
      await L(frame, 'VAT').fill('FR123');
      assert.ok(!(await shown(frame, 'Age')));
      await L(frame, 'Kind').selectOption({ label: 'person' });
      assert.ok(!(await shown(frame, 'VAT')), 'the then-branch is gone');
      assert.ok(await shown(frame, 'Age'), 'the else-branch is shown');
      assert.deepEqual(await run(page, frame, 'party'), { kind: 'person' });
      // Back to company: the branch comes back with what was typed.
      await L(frame, 'Kind').selectOption({ label: 'company' });
      assert.equal(await L(frame, 'VAT').inputValue(), 'FR123');
      assert.deepEqual(await run(page, frame, 'party', 2), { kind: 'company', vat: 'FR123' });
      // A tool-input value nobody touched goes out byte for byte, its branch's fields with it.
      const given = { kind: 'person', age: 41, vat: 'kept as given' };
      await input(page, given);
      await frame.waitForFunction(() => [...document.querySelectorAll('input')].some((i) => i.value === '41'));
      assert.deepEqual(await run(page, frame, 'party', 3), given);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('draft-07 dependencies (schema form): the billing address appears with a card number and is required then', async () => {
    const { page, frame, errors } = await open('card_schema');
    try {
      await L(frame, 'Name').fill('Ada');
      assert.ok(!(await shown(frame, 'Billing address')));
      assert.deepEqual(await run(page, frame, 'card_schema'), { name: 'Ada' });
      await L(frame, 'Credit card').fill('4111');
      assert.ok(await shown(frame, 'Billing address'));
      assert.equal(await run(page, frame, 'card_schema', 2), null, 'a card without its billing address is not sent');
      assert.match((await messages(frame)).join(' '), /required/);
      await L(frame, 'Billing address').fill('1 Main St');
      assert.deepEqual(await run(page, frame, 'card_schema', 2), { name: 'Ada', credit_card: 4111, billing_address: '1 Main St' });
      await L(frame, 'Credit card').fill('');
      assert.ok(!(await shown(frame, 'Billing address')));
      assert.deepEqual(await run(page, frame, 'card_schema', 3), { name: 'Ada' });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a tool-input value that makes the call invalid (a card without its address) blocks the Run at the field', async () => {
    const { page, frame, errors } = await open('card_schema');
    try {
      await input(page, { name: 'Bo', credit_card: 5 });
      await frame.waitForFunction(() => [...document.querySelectorAll('input')].some((i) => i.value === '5'));
      assert.ok(await shown(frame, 'Billing address'), 'the branch the tool-input activates is shown');
      assert.equal(await run(page, frame, 'card_schema'), null);
      const field = frame.locator('.fld', { has: L(frame, 'Billing address') });
      assert.match(await field.locator('.err').textContent(), /required/);
      assert.deepEqual(await calls(page), [], 'nothing was sent');
      await L(frame, 'Billing address').fill('2 Side St');
      assert.deepEqual(await run(page, frame, 'card_schema'), { name: 'Bo', credit_card: 5, billing_address: '2 Side St' });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a root anyOf whose branch is an if/then/else: the active branch\'s fields come and go, only they are sent', async () => {
    const { page, frame, errors } = await open('booking');
    try {
      assert.ok(await shown(frame, 'Title'));
      assert.ok(await shown(frame, 'Repeat'));
      assert.equal(await frame.getByLabel(/kind$/).count(), 0, 'one branch: no choice of kind');
      assert.ok(await shown(frame, 'Date'), 'the else branch: no repeat yet');
      assert.ok(!(await shown(frame, 'Weekday')));
      await L(frame, 'Title').fill('Standup');
      await L(frame, 'Date').fill('2026-12-01');
      assert.deepEqual(await run(page, frame, 'booking'), { title: 'Standup', date: '2026-12-01' });
      await L(frame, 'Repeat').selectOption({ label: 'Weekly' });
      assert.ok(await shown(frame, 'Weekday'), 'the then branch');
      assert.ok(!(await shown(frame, 'Date')), 'the else branch is gone');
      assert.equal(await run(page, frame, 'booking', 2), null, 'a weekly booking needs its weekday');
      assert.match(await frame.locator('.fld', { has: L(frame, 'Weekday') }).locator('.err').textContent(), /required/);
      await L(frame, 'Weekday').selectOption({ label: 'Tue' });
      assert.deepEqual(await run(page, frame, 'booking', 2), { title: 'Standup', repeat: 'Weekly', weekday: 'Tue' }, 'the date typed in the inactive branch is not sent');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a root conditional beside oneOf branches with conditionals of their own: both apply', async () => {
    const { page, frame, errors } = await open('delivery');
    try {
      await L(frame, 'Value — kind').selectOption({ label: 'Ship' });
      await L(frame, 'Gift').selectOption({ label: 'Yes' });
      assert.ok(await shown(frame, 'Note'), 'the root\'s own then branch');
      await L(frame, 'Note').fill('Happy birthday');
      await L(frame, 'Method').selectOption({ label: 'courier' });
      assert.ok(await shown(frame, 'Phone'), 'the Ship branch\'s then branch');
      assert.ok(!(await shown(frame, 'Box')));
      assert.equal(await run(page, frame, 'delivery'), null, 'a courier needs a phone');
      await L(frame, 'Phone').fill('555');
      assert.deepEqual(await run(page, frame, 'delivery'), { gift: true, note: 'Happy birthday', method: 'courier', phone: '555' });
      await L(frame, 'Method').selectOption({ label: 'post' });
      await L(frame, 'Gift').selectOption({ label: 'No' });
      assert.ok(await shown(frame, 'Box'));
      assert.ok(!(await shown(frame, 'Phone')));
      assert.ok(!(await shown(frame, 'Note')));
      assert.deepEqual(await run(page, frame, 'delivery', 2), { gift: false, method: 'post' });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  for (const tool of ['card_list', 'card_2020']) {
    test(`${tool}: a field becomes required (marked) while its trigger is set`, async () => {
      const { page, frame, errors } = await open(tool);
      try {
        await L(frame, 'Name').fill('Ada');
        const star = () => frame.locator('label', { hasText: 'Billing address' }).locator('.req:not([hidden])').count();
        assert.equal(await star(), 0);
        await L(frame, 'Credit card').fill('4111');
        assert.equal(await star(), 1, 'marked required');
        assert.equal(await L(frame, 'Billing address').getAttribute('aria-required'), 'true');
        assert.equal(await run(page, frame, tool), null);
        await L(frame, 'Billing address').fill('1 Main St');
        if (tool === 'card_2020') {
          // dependentSchemas: the address brings a zip field, required.
          assert.ok(await shown(frame, 'Zip'));
          assert.equal(await run(page, frame, tool), null);
          await L(frame, 'Zip').fill('75001');
        }
        const sent = await run(page, frame, tool);
        assert.deepEqual(sent, { name: 'Ada', credit_card: 4111, billing_address: '1 Main St', ...tool === 'card_2020' ? { zip: '75001' } : {} });
        await L(frame, 'Credit card').fill('');
        assert.equal(await star(), 0, 'no longer required');
        assert.deepEqual(errors, []);
      } finally { await page.close(); }
    });
  }
});

describe('maps', () => {
  test('patternProperties: keys checked against the patterns and propertyNames, the value\'s control from the matching pattern', async () => {
    const { page, frame, errors } = await open('headers');
    try {
      const add = frame.getByRole('button', { name: '+ Add entry' });
      await add.click();
      const keys = frame.getByLabel(/^Key/);
      await keys.nth(0).fill('x-trace');
      await keys.nth(0).dispatchEvent('change');
      await frame.getByLabel(/^Value/).nth(0).fill('on');
      await add.click();
      await keys.nth(1).fill('n-retries');
      await keys.nth(1).dispatchEvent('change');
      assert.equal(await frame.getByLabel(/^Value/).nth(1).getAttribute('type'), 'number', 'the ^n- pattern says integer');
      await frame.getByLabel(/^Value/).nth(1).fill('3');
      assert.deepEqual(await run(page, frame, 'headers'), { headers: { 'x-trace': 'on', 'n-retries': 3 } });
      await add.click();
      await keys.nth(2).fill('other');
      await keys.nth(2).dispatchEvent('change');
      await frame.getByLabel(/^Value/).nth(2).fill('v');
      assert.equal(await run(page, frame, 'headers', 2), null, 'a key outside the patterns is refused');
      assert.match((await messages(frame)).join(' '), /must match \^x- or \^n-/);
      await keys.nth(2).fill('x-much-too-long');
      await keys.nth(2).dispatchEvent('change');
      assert.equal(await run(page, frame, 'headers', 2), null, 'propertyNames: maxLength 10');
      assert.match((await messages(frame)).join(' '), /Key:/);
      await keys.nth(2).fill('x-ok');
      await keys.nth(2).dispatchEvent('change');
      assert.deepEqual(await run(page, frame, 'headers', 2), { headers: { 'x-trace': 'on', 'n-retries': 3, 'x-ok': 'v' } });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a free-form object inside anyOf gets key/value rows', async () => {
    const { page, frame, errors } = await open('page_props');
    try {
      await L(frame, 'Parent').fill('p1');
      await L(frame, 'Properties — kind').selectOption({ label: 'object' });
      await frame.getByRole('button', { name: '+ Add entry' }).click();
      await frame.getByLabel(/^Key/).fill('Status');
      await frame.getByLabel(/^Value/).fill('Done');
      assert.deepEqual(await run(page, frame, 'page_props'), { parent: 'p1', properties: { Status: 'Done' } });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});

describe('the whole schema\'s messages at their row', () => {
  // The shown message of the .fld that holds control el, and whether el is marked invalid.
  const at = (el) => el.evaluate((c) => { const e = c.closest('.fld').querySelector('.err'); return { msg: e.hidden ? '' : e.textContent, invalid: c.getAttribute('aria-invalid') === 'true' }; });
  const boxMsg = (frame, n) => frame.locator('fieldset.arr').nth(n).evaluate((f) => [...f.children].filter((c) => c.matches('.err:not([hidden])')).map((c) => c.textContent).join(' '));

  test('an error inside an array row is shown at that row\'s own control, follows the row when it moves, and clears when fixed', async () => {
    const { page, frame, errors } = await open('order');
    try {
      const items = frame.locator('fieldset.arr').nth(0), addItem = items.getByRole('button', { name: /^\+ Add/ });
      for (const [sku, qty] of [['a', '1'], ['b', '2'], ['c', '13']]) {
        await addItem.click();
        await items.getByLabel(/^SKU/).last().fill(sku);
        await items.getByLabel(/^Qty/).last().fill(qty);
      }
      assert.equal(await run(page, frame, 'order'), null, 'the validator refuses qty 13');
      assert.deepEqual(await calls(page), [], 'nothing was sent');
      const qty = items.getByLabel(/^Qty/);
      assert.deepEqual(await at(qty.nth(2)), { msg: 'Must not be 13.', invalid: true }, 'at row 3\'s own Qty');
      assert.deepEqual(await at(qty.nth(0)), { msg: '', invalid: false });
      assert.equal(await boxMsg(frame, 0), '', 'not at the list\'s box');
      // Moved up, the row keeps its message: the message names the row by what is sent.
      await items.getByRole('button', { name: 'Move item 3 up' }).click();
      assert.equal(await run(page, frame, 'order'), null);
      assert.equal((await at(qty.nth(1))).msg, 'Must not be 13.', 'the moved row, now second');
      assert.equal((await at(qty.nth(2))).msg, '');
      await qty.nth(1).fill('12');
      assert.deepEqual(await run(page, frame, 'order'), { items: [{ sku: 'a', qty: 1 }, { sku: 'c', qty: 12 }, { sku: 'b', qty: 2 }] });
      assert.deepEqual(await messages(frame), [], 'cleared once fixed');
      // A list of plain values: the row's own input.
      const tags = frame.locator('fieldset.arr').nth(1);
      for (const t of ['a', 'x']) { await tags.getByRole('button', { name: /^\+ Add/ }).click(); await tags.locator('input').last().fill(t); }
      assert.equal(await run(page, frame, 'order', 2), null);
      assert.deepEqual(await at(tags.locator('input').nth(1)), { msg: 'Must not be "x".', invalid: true });
      assert.equal(await boxMsg(frame, 1), '');
      await tags.locator('input').nth(1).fill('y');
      assert.deepEqual((await run(page, frame, 'order', 2)).tags, ['a', 'y']);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('an error inside a row with no control of its own is shown at the nearest one the form shows: the row', async () => {
    const { page, frame, errors } = await open('order');
    try {
      // A key nothing declares, as a host's tool-input gives it (kept as given, then refused).
      await input(page, { items: [{ sku: 'a' }, { sku: 'b', zz: 1 }] });
      await frame.waitForFunction(() => [...document.querySelectorAll('input')].some((i) => i.value === 'b'));
      assert.equal(await run(page, frame, 'order'), null);
      assert.deepEqual(await calls(page), []);
      const rowMsg = (n) => frame.locator('fieldset.arr fieldset.obj').nth(n).evaluate((f) => [...f.children].filter((c) => c.matches('.err:not([hidden])')).map((c) => c.textContent).join(' '));
      assert.equal(await rowMsg(1), 'zz: Unexpected field.', 'at the second row, with the rest of the path');
      assert.equal(await rowMsg(0), '');
      assert.equal(await boxMsg(frame, 0), '', 'not at the list\'s box');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('an error about a map entry is shown at that entry\'s row, its key\'s too', async () => {
    const { page, frame, errors } = await open('order');
    try {
      const add = frame.getByRole('button', { name: '+ Add entry' }), keys = frame.getByLabel(/^Key/), values = frame.getByLabel(/^Value/);
      await add.click();
      await keys.nth(0).fill('cpu');
      await keys.nth(0).dispatchEvent('change');
      await values.nth(0).fill('2');
      await add.click();
      await keys.nth(1).fill('mem');
      await keys.nth(1).dispatchEvent('change');
      await values.nth(1).fill('0');
      assert.equal(await run(page, frame, 'order'), null);
      assert.deepEqual(await calls(page), []);
      assert.deepEqual(await at(values.nth(1)), { msg: 'Must not be 0.', invalid: true }, 'at the mem entry\'s value');
      assert.deepEqual(await at(values.nth(0)), { msg: '', invalid: false });
      await values.nth(1).fill('4');
      // A key no pattern takes (unevaluatedProperties: false): at its own row.
      await add.click();
      await keys.nth(2).fill('Disk');
      await keys.nth(2).dispatchEvent('change');
      await values.nth(2).fill('9');
      assert.equal(await run(page, frame, 'order'), null);
      assert.match((await at(values.nth(2))).msg, /Unexpected field/);
      assert.equal((await at(values.nth(1))).msg, '', 'the fixed entry is clear');
      assert.equal(await frame.locator('fieldset.obj[data-key=limits]').evaluate((f) => [...f.children].filter((c) => c.matches('.err:not([hidden])')).length), 0, 'not at the object\'s box');
      await keys.nth(2).fill('disk');
      await keys.nth(2).dispatchEvent('change');
      await values.nth(2).fill('9');
      assert.deepEqual(await run(page, frame, 'order'), { limits: { cpu: 2, mem: 4, disk: 9 } });
      assert.deepEqual(await messages(frame), []);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f2d0000000049454e44ae426082', 'hex');
describe('files', () => {
  test('a file picker reads the file into the declared encoding, with name, size and a data: preview', async () => {
    const { page, frame, errors } = await open('files');
    try {
      assert.equal(await L(frame, 'Photo').getAttribute('type'), 'file');
      assert.equal(await L(frame, 'Photo').getAttribute('accept'), 'image/png');
      await L(frame, 'Photo').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
      await frame.waitForSelector('.filep img');
      assert.match(await frame.locator('.filei').first().textContent(), /^dot\.png, \d+ bytes$/);
      assert.match(await frame.locator('.filep img').first().getAttribute('src'), /^data:image\/png;base64,/);
      await L(frame, 'Doc').setInputFiles({ name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
      await frame.waitForFunction(() => document.querySelectorAll('.filei')[1].textContent.includes('a.txt'));
      assert.deepEqual(await run(page, frame, 'files'), { photo: PNG.toString('base64'), doc: 'data:text/plain;base64,' + Buffer.from('hello').toString('base64') });
      // An array of files: one picker per row; an SVG is previewed only as an <img>.
      await frame.getByRole('button', { name: /\+ Add/ }).click();
      await frame.locator('fieldset.arr input[type=file]').setInputFiles({ name: 'x.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>parent.x=1</script></svg>') });
      await frame.waitForFunction(() => document.querySelectorAll('.filep img').length === 2);
      assert.equal(await frame.locator('fieldset.arr svg').count(), 0);
      const sent = await run(page, frame, 'files', 2);
      assert.match(sent.pics[0], /^data:image\/svg\+xml;base64,/);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('over the cap, or of the wrong type: an inline error and nothing read', async () => {
    const { page, frame, errors } = await open('files');
    try {
      await L(frame, 'Photo').setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: Buffer.alloc(5000) });
      await frame.waitForSelector('.err:not([hidden])');
      assert.match((await messages(frame)).join(' '), /4\.9 KB; files of at most 4\.0 KB/);
      await L(frame, 'Photo').setInputFiles({ name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
      assert.match((await messages(frame)).join(' '), /Expected a image\/png file; a\.txt is text\/plain/);
      assert.deepEqual(await run(page, frame, 'files'), {}, 'nothing was read, nothing is sent');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a large base64 value from tool-input is shown as "file, N bytes", never in a text box, and sent as given', async () => {
    const { page, frame, errors } = await open('files');
    try {
      const big = Buffer.alloc(300000, 7).toString('base64');
      await input(page, { photo: big });
      await frame.waitForFunction(() => document.querySelector('.filei').textContent !== '');
      assert.equal(await frame.locator('.filei').first().textContent(), 'file, 293.0 KB');
      assert.equal(await frame.evaluate((b) => [...document.querySelectorAll('input,textarea')].some((e) => e.value === b), big), false);
      assert.deepEqual(await run(page, frame, 'files'), { photo: big });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});

describe('values the schema gives', () => {
  test('readOnly: shown, not editable, sent only as the default or the tool-input gave it', async () => {
    const { page, frame, errors } = await open('read_only');
    try {
      assert.equal(await L(frame, 'ID').inputValue(), 'abc');
      assert.equal(await L(frame, 'ID').evaluate((e) => e.readOnly), true);
      assert.equal(await L(frame, 'Stamp').evaluate((e) => e.readOnly), true);
      await L(frame, 'Note').fill('n');
      assert.deepEqual(await run(page, frame, 'read_only'), { id: 'abc', note: 'n' });
      await input(page, { id: 'zzz', stamp: 's1' });
      await frame.waitForFunction(() => [...document.querySelectorAll('input')].some((i) => i.value === 'zzz'));
      // A new tool-input replaces the form (book: reference/pages.md, "Living in the host"): the
      // note sent before is not kept.
      assert.deepEqual(await run(page, frame, 'read_only', 2), { id: 'zzz', stamp: 's1' });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('examples are offered as suggestions', async () => {
    const { page, frame, errors } = await open('examples');
    try {
      const list = async (label) => L(frame, label).evaluate((e) => [...(e.list?.options || [])].map((o) => o.value));
      assert.deepEqual(await list('City'), ['Paris', 'Berlin', 'Tokyo']);
      assert.deepEqual(await list('N'), ['10', '20']);
      assert.deepEqual(await run(page, frame, 'examples'), {}, 'a suggestion is not a value');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('tuples: fixed rows with their own controls, extra rows per items', async () => {
    const { page, frame, errors } = await open('tuple');
    try {
      await L(frame, 'Lat').fill('48.85');
      await L(frame, 'Lon').fill('2.35');
      assert.equal(await frame.locator('fieldset.tup').first().getByRole('button', { name: /Add/ }).count(), 0, 'items: false: no extra rows');
      await L(frame, 'Name').fill('apples');
      await L(frame, 'Count').fill('3');
      await frame.locator('fieldset.tup').nth(1).getByRole('button', { name: /Add/ }).click();
      await frame.locator('fieldset.tup').nth(1).locator('input[type=checkbox]').check();
      assert.deepEqual(await run(page, frame, 'tuple'), { point: [48.85, 2.35], row: ['apples', 3, true] });
      await L(frame, 'Name').fill('');
      assert.equal(await run(page, frame, 'tuple', 2), null, 'no hole in a tuple');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('defaults inside allOf, oneOf and $ref targets are shown and sent', async () => {
    const { page, frame, errors } = await open('branch_defaults');
    try {
      assert.equal(await L(frame, 'A').inputValue(), '5');
      assert.equal(await L(frame, 'B').inputValue(), 'y');
      assert.equal(await L(frame, 'C').inputValue(), 'x');
      await L(frame, 'Shape — kind').selectOption({ label: 'Circle' });
      assert.equal(await L(frame, 'R').inputValue(), '1');
      assert.deepEqual(await run(page, frame, 'branch_defaults'), { a: 5, b: 'y', c: 'x', shape: { r: 1 } });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('every oneOf/anyOf branch has a distinct name; a titled one-value enum is one choice', async () => {
    const { page, frame, errors } = await open('names');
    try {
      const opts = (label) => L(frame, label).evaluate((e) => [...e.options].map((o) => o.textContent).filter((t) => t !== '(not set)'));
      assert.deepEqual(await opts('By const — kind'), ['cat', 'dog']);
      assert.deepEqual(await opts('By required — kind'), ['With Email', 'With Phone number']);
      assert.deepEqual(await opts('Same — kind'), ['Option 1', 'Option 2']);
      assert.deepEqual(await opts('Color'), ['Red', 'Blue']);
      assert.equal(await frame.locator('select').count(), 4, 'the colour is one select');
      await L(frame, 'Color').selectOption({ label: 'Blue' });
      assert.deepEqual(await run(page, frame, 'names'), { color: 'b' });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});

describe('no schema shape throws', () => {
  for (const [name, [, expected]] of Object.entries(SHAPES)) {
    test(name, async () => {
      const { page, frame, errors } = await open(name);
      try {
        assert.deepEqual(await run(page, frame, name), expected);
        assert.deepEqual(errors, [], 'no console error');
      } finally { await page.close(); }
    });
  }
});
