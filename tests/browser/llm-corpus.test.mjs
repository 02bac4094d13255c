// The corpus of realistic model answers (tests/fixtures/llm/corpus), replayed through the real
// llm pipeline with a fake provider on 127.0.0.1 (`cargo test --test llm corpus_answers…`), and
// every resulting page (kept, repaired or the builtin fallback) checked in headless chromium inside
// the real AppBridge under the default MCP Apps CSP: handshake, no console or CSP error, result
// values visible, labelled controls, a schema-valid tools/call, size, axe-core (0 serious or
// critical violations, light and dark theme) and no script run by hostile strings in the tool's
// definition or results; a page whose own result handler throws does not count as working (the
// runtime then shows the builtin view: McpGenUi.handlerErrors says so). Prints one row per
// answer: kept / fell back / works.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, ajv, norm, llmPagesSuite } from './lib.mjs';

const CORPUS = path.join(REPO, 'tests', 'fixtures', 'llm', 'corpus');
const TOOLS = JSON.parse(fs.readFileSync(path.join(CORPUS, 'tools.json'), 'utf8'));
const CASES = JSON.parse(fs.readFileSync(path.join(CORPUS, 'cases.json'), 'utf8'));
const AXE = fs.readFileSync(path.join(REPO, 'tests', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const MAX_BYTES = 500 * 1024;
// Buttons that do something other than run the tool (a person would not press them to run it).
const OTHER_BUTTONS = /swap|reset|clear|cancel|close|copy|theme|toggle|dark mode|light mode|raw json|show more|more rows|discard/i;

let browser, http, report;
const rows = [];

let suite;
before(async () => {
  // MCP_GEN_UI_LLM_CORPUS_DIR=dir checks the pages a run of the Rust test already wrote there
  // (with MCP_GEN_UI_LLM_CORPUS_OUT=dir) instead of replaying the corpus again.
  suite = await llmPagesSuite('corpus_answers_are_kept_or_replaced_as_expected', 'MCP_GEN_UI_LLM_CORPUS_OUT', 'llm-corpus', process.env.MCP_GEN_UI_LLM_CORPUS_DIR);
  ({ browser, http } = suite);
  report = JSON.parse(fs.readFileSync(path.join(suite.dir, 'report.json'), 'utf8'));
});

after(async () => { await suite?.close(); });

async function axe(frame) {
  // Loaded once per page: the dark-theme run reuses the light run's copy.
  if (!(await frame.evaluate(() => typeof window.axe === 'object'))) await frame.evaluate(AXE);
  return frame.evaluate(async () => {
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join(', ')}`);
  });
}

async function control(frame, re) {
  const byLabel = frame.getByLabel(new RegExp(re, 'i')).and(frame.locator('input, select, textarea'));
  if (await byLabel.count()) return byLabel.first();
  return null;
}

// One browser page serves answer after answer (a new page costs a new renderer process, about a
// second here): each answer gets a fresh host document in it, its own console record and its own
// result; after an answer that failed, the next one gets a new page.
let reused = null;
async function hostPage(result) {
  if (!reused) {
    const page = await browser.newPage();
    const state = { page, errors: [], result: null };
    page.on('console', (m) => { if (m.type() === 'error') state.errors.push(m.text().split('\n')[0]); });
    page.on('pageerror', (e) => state.errors.push(String(e).split('\n')[0]));
    await page.exposeFunction('hostCallTool', async () => state.result);
    reused = state;
  }
  reused.errors.length = 0;
  reused.result = result;
  return reused;
}
async function releasePage(failed) {
  if (!reused) return;
  const { page } = reused;
  // Leave the answer's document before the next one starts recording; a page that failed, threw
  // or cannot leave is closed, and the next answer gets a new one.
  if (!failed && await page.goto('about:blank').then(() => true, () => false)) {
    reused.errors.length = 0;
    return;
  }
  reused = null;
  await page.close().catch(() => {});
}

/** Runs every real-host check on one page; returns the failures (empty: the page works). */
async function checkPage(file, toolName) {
  const tool = TOOLS[toolName];
  const kase = CASES[toolName];
  const fails = [];
  const size = fs.statSync(path.join(suite.dir, file)).size;
  if (size > MAX_BYTES) fails.push(`size ${size} bytes`);
  const { page, errors } = await hostPage(kase.result);
  let xss = 0, done = false;
  try {
    await page.goto(`http://127.0.0.1:${http.port}/host.html`);
    await page.waitForFunction(() => typeof window.startHost === 'function');
    const ctx = { theme: 'light', platform: 'web', locale: 'en-US', toolInfo: { tool } };
    await page.evaluate(([src, c]) => window.startHost(src, c), [`/guest/${file}`, ctx]);
    const ok = await page.waitForFunction(() => window.__initialized, null, { timeout: 10000 }).then(() => true, () => false);
    const log = await page.evaluate(() => window.__log);
    if (!ok || log[0] !== 'ui/initialize' || log[1] !== 'ui/notifications/initialized') {
      fails.push(`handshake: ${log.join(',')}`);
      return { fails, xss };
    }
    const frame = page.frames().find((f) => f.url().includes('/guest/'));
    // A pushed result shows its values.
    await page.evaluate((r) => window.__bridge.sendToolResult(r), kase.result);
    const want = kase.visible.map(norm);
    const shown = await frame.waitForFunction((w) => {
      const t = document.body.textContent.toLowerCase().replace(/[^a-z0-9]+/g, '');
      return w.every((x) => t.includes(x));
    }, want, { timeout: 5000 }).then(() => true, () => false);
    if (!shown) fails.push(`result values not visible: ${kase.visible.join(', ')}`);
    // The page's own result handler must show the result: when it throws, llm.js shows the
    // builtin view instead and records the error, and the page does not count as working.
    const thrown = await frame.evaluate(() => (window.McpGenUi && window.McpGenUi.handlerErrors) || []);
    if (thrown.length) fails.push(`the page's own result handler threw: ${thrown.slice(0, 2).join(' | ')}`);

    // The form sends a schema-valid tools/call.
    for (const [re, value] of kase.fill) {
      const c = await control(frame, re);
      if (!c) { fails.push(`no control labelled /${re}/`); continue; }
      const tag = await c.evaluate((el) => el.tagName.toLowerCase());
      try {
        if (tag === 'select') await c.selectOption(value).catch(() => c.selectOption({ label: value }));
        else await c.fill(value);
      } catch (e) { fails.push(`fill /${re}/: ${String(e).split('\n')[0]}`); }
    }
    // The Run: a submit button, else (a page that wires a plain button to its call) the first
    // visible button whose name is not one of the page's other controls.
    let submit = frame.locator('button:not([type=button]):not([type=reset]), input[type=submit]').first();
    if (!await submit.count()) {
      submit = frame.locator('button:visible').filter({ hasNotText: OTHER_BUTTONS }).first();
    }
    if (await submit.count()) await submit.click({ timeout: 3000 }).catch((e) => fails.push(`submit: ${String(e).split('\n')[0]}`));
    else fails.push('no button that runs the tool');
    let called = await page.waitForFunction(() => window.__calls.length > 0, null, { timeout: kase.confirm ? 1500 : 5000 }).then(() => true, () => false);
    if (!called && kase.confirm) {
      const yes = frame.getByRole('alertdialog').getByRole('button', { name: new RegExp(kase.confirm, 'i') });
      if (await yes.count()) {
        await yes.first().click({ timeout: 3000 });
        called = await page.waitForFunction(() => window.__calls.length > 0, null, { timeout: 5000 }).then(() => true, () => false);
      }
    }
    if (!called) fails.push('no tools/call');
    else {
      const call = (await page.evaluate(() => window.__calls))[0];
      const validate = ajv().compile(tool.inputSchema);
      if (call.name !== tool.name) fails.push(`tools/call names ${call.name}`);
      if (!validate(call.arguments)) fails.push(`arguments ${JSON.stringify(call.arguments)}: ${ajv().errorsText(validate.errors)}`);
    }
    await page.waitForTimeout(300);

    const light = await axe(frame);
    if (light.length) fails.push(`axe (light): ${light.join('; ')}`);
    await page.evaluate((c) => window.__bridge.setHostContext({ ...c, theme: 'dark' }), ctx);
    await frame.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'dark', null, { timeout: 3000 }).catch(() => {});
    await page.waitForTimeout(200);
    const dark = await axe(frame);
    if (dark.length) fails.push(`axe (dark): ${dark.join('; ')}`);

    xss = await frame.evaluate(() => window.__xss || 0);
    if (xss) fails.push(`${xss} script execution(s) from hostile strings`);
    if (errors.length) fails.push(`console: ${errors.slice(0, 3).join(' | ')}`);
    done = true;
  } finally {
    await releasePage(!done || fails.length > 0);
  }
  return { fails, xss };
}

test('every corpus answer ends with a working UI; ≥ 95 % of kept pages and ≥ 85 % of mechanically repairable answers work; no XSS', async (t) => {
  // MCP_GEN_UI_CORPUS_ONLY=regex checks only the matching answers (a debugging aid).
  const only = process.env.MCP_GEN_UI_CORPUS_ONLY ? new RegExp(process.env.MCP_GEN_UI_CORPUS_ONLY) : null;
  for (const r of report.filter((x) => !only || only.test(x.id))) {
    await t.test(r.id, async () => {
      let res;
      try { res = await checkPage(`${r.id}.html`, r.tool); } catch (e) { res = { fails: [`check failed: ${String(e).split('\n')[0]}`], xss: 0 }; }
      rows.push({ ...r, works: res.fails.length === 0, ...res });
    });
  }
  const line = (c) => `| ${c.join(' | ')} |`;
  const out = [line(['answer', 'style (family)', 'part', 'kept', 'works', 'notes']), line(['---', '---', '---', '---', '---', '---'])];
  for (const r of rows) {
    const kept = r.kept ? (r.repaired ? 'kept (repair round)' : r.repairs ? `kept (${r.repairs} mechanical repairs)` : 'kept') : 'fell back';
    const notes = r.fails.length ? r.fails.join('; ') : r.kept ? '' : String(r.fallback_reason || '').slice(0, 90);
    const style = r.family ? `${r.style} (${r.family})` : r.style;
    out.push(line([r.id, style, r.held_out ? 'held out' : 'looked at', kept, r.works ? 'yes' : 'NO', notes.replace(/\|/g, '\\|')]));
  }
  const pct = (a, b) => (b ? (100 * a / b).toFixed(1) : '100.0');
  // The corpus's parts: the answers looked at while the generator changed, and the held-out third
  // (corpus.json's held_out), each reported on its own.
  const summary = (label, part) => {
    const kept = part.filter((r) => r.kept);
    const keptWorking = kept.filter((r) => r.works).length;
    const tools = part.filter((r) => r.works).length;
    const mech = part.filter((r) => r.mechanical);
    const mechGood = mech.filter((r) => r.kept && r.works).length;
    out.push(`${label}: kept ${kept.length}/${part.length}, of which working ${keptWorking} (${pct(keptWorking, kept.length)} %); ` +
      `mechanically repairable answers kept and working ${mechGood}/${mech.length} (${pct(mechGood, mech.length)} %); ` +
      `working UI ${tools}/${part.length} (${pct(tools, part.length)} %); script executions from hostile strings: ${part.reduce((a, r) => a + r.xss, 0)}`);
    return { kept, keptWorking, tools, mech, mechGood };
  };
  out.push('');
  summary('looked at', rows.filter((r) => !r.held_out));
  summary('held out', rows.filter((r) => r.held_out));
  // Answers whose defects are all mechanically repairable must end kept and working.
  const { kept, keptWorking, tools, mech, mechGood } = summary('all', rows);
  console.log(out.join('\n'));
  if (process.env.MCP_GEN_UI_CORPUS_TABLE) fs.writeFileSync(process.env.MCP_GEN_UI_CORPUS_TABLE, out.join('\n') + '\n');

  assert.equal(rows.reduce((a, r) => a + r.xss, 0), 0, 'no script ran from a hostile string');
  assert.ok(keptWorking >= 0.95 * kept.length, `${keptWorking} of ${kept.length} kept pages work`);
  if (!only) assert.ok(mechGood >= 0.85 * mech.length, `${mechGood} of ${mech.length} mechanically repairable answers are kept and work`);
  assert.ok(tools >= 0.97 * rows.length, `${tools} of ${rows.length} tools end with a working UI`);
  // The builtin UI that replaces a page must always work.
  for (const r of rows.filter((x) => !x.kept)) assert.ok(r.works, `${r.id} (builtin fallback): ${r.fails.join('; ')}`);
});

test('llm.js: arguments are coerced or refused with a visible message naming the field; confirm says yes only on yes', async () => {
  const page = await browser.newPage();
  try {
    await page.exposeFunction('hostCallTool', async () => CASES.create_event.result);
    await page.goto(`http://127.0.0.1:${http.port}/host.html`);
    await page.waitForFunction(() => typeof window.startHost === 'function');
    // The host's time zone (no daylight saving there) differs from the browser's: a model's
    // wall-clock values get the host's offset, as the form's own time fields do.
    await page.evaluate((src) => window.startHost(src, { theme: 'light', timeZone: 'Asia/Kolkata' }), '/guest/03-esm-formdata-event.html');
    await page.waitForFunction(() => window.__initialized, null, { timeout: 10000 });
    const frame = page.frames().find((f) => f.url().includes('/guest/'));
    const schema = TOOLS.create_event.inputSchema;
    const ok = await frame.evaluate((s) => window.McpGenUi.coerceArguments(
      { title: 'Standup', date: '2026-03-02', start_time: '09:30', duration_minutes: '45', all_day: 'false' }, s), schema);
    assert.deepEqual(ok.errors, []);
    assert.equal(ok.value.duration_minutes, 45);
    assert.equal(ok.value.all_day, false);
    assert.equal(ok.value.start_time, '09:30:00+05:30');
    assert.ok(ajv().compile(schema)(ok.value), JSON.stringify(ok.value));
    const dt = await frame.evaluate((s) => window.McpGenUi.coerceArguments({ message: 'x', at: '2026-03-02T09:30', repeat: 'on' }, s), TOOLS.schedule_reminder.inputSchema);
    assert.equal(dt.value.at, '2026-03-02T09:30:00+05:30');
    assert.equal(dt.value.repeat, true);
    // Still invalid: not sent, and said in the page.
    const refused = await frame.evaluate(() => window.McpGenUi.App.prototype.callServerTool.call(
      { _ctx: {} }, { name: 'create_event', arguments: { title: 'x', date: '2026-03-02', start_time: '09:30', duration_minutes: 'soon' } })
      .then(() => 'sent', (e) => e.message));
    assert.match(refused, /duration_minutes/);
    const shown = await frame.evaluate(() => document.getElementById('mcp-gen-ui-error')?.textContent || '');
    assert.match(shown, /duration_minutes/);
    assert.equal(await frame.evaluate(() => document.getElementById('mcp-gen-ui-error').getAttribute('role')), 'alert');
    assert.equal((await page.evaluate(() => window.__calls)).length, 0, 'nothing was sent');
    // confirm(): Escape and Cancel say no, only the confirming button says yes.
    const escaped = frame.evaluate(() => window.McpGenUi.confirm('Delete?'));
    await frame.getByRole('alertdialog').waitFor();
    await frame.locator('body').press('Escape');
    assert.equal(await escaped, false);
    const yes = frame.evaluate(() => window.McpGenUi.confirm('Delete?'));
    await frame.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click();
    assert.equal(await yes, true);
  } finally {
    await page.close();
  }
});
