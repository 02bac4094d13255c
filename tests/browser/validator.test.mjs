// Never a call the schema rejects (book: reference/pages.md, "What a page checks before a call"):
// a builtin page, rendered by the generator and run in the real host (AppBridge), checks a Run's
// arguments against the tool's whole inputSchema first. A Run that breaks an if/then rule,
// dependentRequired or not is blocked, its message shown at the field, and no tools/call is
// sent; run_tool (the model's Run) is refused the same way; a valid Run is sent, and Ajv agrees
// it is valid.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, buildRust, ajv, EXAMPLES } from './lib.mjs';
import { tempDir } from './tmp.mjs';

buildRust();
let env, dir;

const ADOPT = {
  name: 'adopt',
  annotations: { readOnlyHint: true },
  inputSchema: {
    type: 'object',
    properties: {
      animal: { type: 'string', enum: ['Cat', 'Dog'] },
      lives: { type: 'integer', title: 'Lives' },
      card: { type: 'string', title: 'Card' },
      billing: { type: 'string', title: 'Billing' },
      code: { type: 'string', title: 'Code', not: { const: 'FREE' } },
    },
    required: ['animal'],
    if: { properties: { animal: { const: 'Cat' } } },
    then: { required: ['lives'] },
    dependentRequired: { card: ['billing'] },
  },
};

before(async () => {
  env = await launch();
  dir = tempDir('mcp-gen-ui-validator-');
  fs.writeFileSync(path.join(dir, 'tools.json'), JSON.stringify([ADOPT]));
  execFileSync(path.join(EXAMPLES, 'render-tool'), [path.join(dir, 'tools.json'), dir]);
});
after(async () => { await env?.close(); });

const calls = (page) => page.evaluate(() => window.__calls);
// The inline message of the field whose label is `label`.
const fieldError = (frame, label) => frame.locator('.fld', { has: frame.getByLabel(new RegExp('^' + label + '( \\*)?$')) }).locator('.err');

describe('a Run the schema rejects is not sent', () => {
  test('if/then, dependentRequired and not: each blocked at its field, then a valid Run is sent', async () => {
    env.guestDir.current = dir;
    const { page, frame, errors } = await env.openApp('adopt.html');
    try {
      const html = fs.readFileSync(path.join(dir, 'adopt.html'), 'utf8');
      assert.match(html, /checkArgs/, 'the page embeds the validator');
      const run = () => frame.click('button[type=submit]');
      // if animal is Cat then lives is required.
      await frame.getByLabel(/^Animal/).selectOption({ label: 'Cat' });
      await run();
      await fieldError(frame, 'Lives').filter({ hasText: 'This field is required.' }).waitFor();
      assert.match(await frame.locator('#mcp-status').textContent(), /Please fix 1 field/);
      assert.equal(await frame.getByLabel(/^Lives/).getAttribute('aria-invalid'), 'true');
      // A card without the billing address it requires.
      await frame.getByLabel(/^Lives/).fill('9');
      await frame.getByLabel(/^Card/).fill('4111 1111 1111 1111');
      await run();
      // The form marks it required while the card is set (form-cond.js); else the validator says why.
      await fieldError(frame, 'Billing').filter({ hasText: /^(This field is required\.|Required when card is set\.)$/ }).waitFor();
      assert.equal(await fieldError(frame, 'Lives').isHidden(), true, 'the fixed field shows no message');
      // not: {const: "FREE"}.
      await frame.getByLabel(/^Billing/).fill('1 Main St');
      await frame.getByLabel(/^Code/).fill('FREE');
      await run();
      await fieldError(frame, 'Code').filter({ hasText: 'Must not be "FREE".' }).waitFor();
      assert.deepEqual(await calls(page), [], 'nothing was sent');
      // The model's Run (run_tool, which fills the fields it names and keeps the others) is
      // refused the same way, naming the field, and sends nothing.
      await frame.getByLabel(/^Lives/).fill('');
      await frame.getByLabel(/^Code/).fill('WELCOME');
      const refused = await page.evaluate(() => window.__bridge.callTool({ name: 'run_tool', arguments: { arguments: { animal: 'Cat' } } }));
      assert.equal(refused.isError, true);
      assert.match(refused.content[0].text, /lives: This field is required\./);
      assert.deepEqual(await calls(page), [], 'nothing was sent');
      // Valid now: sent, and valid for the reference validator too.
      await frame.getByLabel(/^Lives/).fill('9');
      await frame.getByLabel(/^Card/).fill('4111 1111 1111 1111');
      await frame.getByLabel(/^Billing/).fill('1 Main St');
      await frame.getByLabel(/^Code/).fill('WELCOME');
      await run();
      await page.waitForFunction(() => window.__calls.length === 1, null, { timeout: 10000 });
      const sent = (await calls(page))[0];
      assert.deepEqual(sent.arguments, { animal: 'Cat', lives: 9, card: '4111 1111 1111 1111', billing: '1 Main St', code: 'WELCOME' });
      const check = ajv().compile(ADOPT.inputSchema);
      assert.ok(check(sent.arguments), JSON.stringify(check.errors));
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});
