// The page's validator (the minified parts pages embed) on the official JSON Schema Test Suite,
// draft 2020-12 and draft-07, next to the reference validator (Ajv 2020 / Ajv draft-07 with
// ajv-formats). The suite is not in the repository: the PyPI sdist of `jsonschema` ships it
// (json/tests/), and this test downloads it once into a cache folder with pip. Without pip or the
// registry it skips, loudly. Every case of a claimed keyword must give the suite's answer; what is
// not claimed is listed below with the reason, and the counts are printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pageValidator } from './page-validator.mjs';

const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020').default;
const Ajv7 = require('ajv').default;
const addFormats = require('ajv-formats').default;

const SDIST = 'jsonschema==4.25.1';
const CACHE = process.env.MCP_GEN_UI_TEST_CACHE || path.join(os.homedir(), '.cache', 'mcp-gen-ui-tests');

// The suite's folder, downloaded on first use; null (with the reason) when it cannot be had.
function suite() {
  const dir = path.join(CACHE, 'jsonschema-4.25.1', 'json', 'tests');
  if (existsSync(path.join(dir, 'draft2020-12', 'ref.json'))) return { dir };
  try {
    mkdirSync(CACHE, { recursive: true });
    execFileSync('python3', ['-m', 'pip', 'download', SDIST, '--no-binary', ':all:', '--no-deps', '--quiet', '-d', CACHE], { stdio: 'pipe', timeout: 300000 });
    execFileSync('tar', ['xzf', path.join(CACHE, 'jsonschema-4.25.1.tar.gz'), '-C', CACHE, 'jsonschema-4.25.1/json/tests'], { stdio: 'pipe' });
    return { dir };
  } catch (e) {
    return { why: 'could not download the JSON Schema Test Suite (' + SDIST + ' from PyPI): ' + String(e.stderr || e.message).slice(0, 300) };
  }
}

// What the page does not claim (book: reference/pages.md, "What a page checks before a call").
const NOT_CLAIMED = {
  // In 2020-12 format is an annotation unless asserted; pages assert the formats they know (as
  // Ajv with ajv-formats does), so these "only an annotation" cases differ on purpose.
  'draft2020-12/format.json': 'formats are asserted',
  'vocabulary.json': '$vocabulary (custom metaschemas)',
  'optional/format-assertion.json': '$vocabulary (custom metaschemas)',
  'optional/content.json': 'contentEncoding/contentMediaType as assertions',
  'optional/cross-draft.json': 'a $ref into another draft',
  'optional/float-overflow.json': 'multipleOf past the largest double',
  'optional/format/idn-email.json': 'format idn-email',
  'optional/format/idn-hostname.json': 'format idn-hostname',
  'optional/format/iri.json': 'format iri',
  'optional/format/iri-reference.json': 'format iri-reference',
  'optional/format/uri-template.json': 'format uri-template',
  'optional/format/ecmascript-regex.json': 'format regex beyond what JavaScript compiles',
};

const files = (dir) => {
  const out = [];
  const walk = (d, pre) => {
    for (const f of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (f.isDirectory()) walk(path.join(d, f.name), pre + f.name + '/');
      else if (f.name.endsWith('.json')) out.push(pre + f.name);
    }
  };
  walk(dir, '');
  return out;
};

// Every $ref and $dynamicRef of a schema, found by walking it (values of const/enum included: a
// string there is never a ref, and an object there only makes the check stricter).
const refs = (s, out = []) => {
  if (Array.isArray(s)) s.forEach((x) => refs(x, out));
  else if (s && typeof s === 'object') for (const [k, v] of Object.entries(s)) { if ((k === '$ref' || k === '$dynamicRef') && typeof v === 'string') out.push([s, v]); else refs(v, out); }
  return out;
};

for (const [draft, Ajv, meta] of [['draft2020-12', Ajv2020, null], ['draft7', Ajv7, 'http://json-schema.org/draft-07/schema#']]) {
  test('the page validator gives the JSON Schema Test Suite answers, ' + draft, (t) => {
    const got = suite();
    if (!got.dir) { t.diagnostic('SKIPPED: ' + got.why); t.skip(got.why); return; }
    const page = pageValidator();
    const S = page.G.schema;
    const n = { passed: 0, skipped: 0, ajvAgrees: 0, ajvDiffers: 0 };
    const skippedWhy = {}, wrong = [], ajvOdd = [];
    const ajv = new Ajv({ strict: false, validateFormats: true, logger: false });
    addFormats(ajv);
    for (const f of files(path.join(got.dir, draft))) {
      const groups = JSON.parse(readFileSync(path.join(got.dir, draft, f), 'utf8'));
      for (const g of groups) {
        const schema = meta && g.schema && typeof g.schema === 'object' && !g.schema.$schema ? { $schema: meta, ...g.schema } : g.schema;
        // A ref the page cannot resolve within the document is a remote ref: not claimed.
        const remote = refs(schema).some(([from, r]) => !S.resolve(schema, r, from));
        const why = NOT_CLAIMED[f] || NOT_CLAIMED[draft + '/' + f] || (remote && 'remote $ref');
        let check = null;
        ajv.removeSchema();
        try { check = ajv.compile(schema); } catch (e) { check = null; }
        for (const c of g.tests) {
          const name = draft + '/' + f + ': ' + g.description + ' / ' + c.description;
          if (why) { n.skipped++; skippedWhy[why] = (skippedWhy[why] || 0) + 1; continue; }
          const verdict = page.valid(schema, c.data);
          if (verdict === c.valid) n.passed++; else wrong.push(name + ' (page says ' + (verdict ? 'valid' : 'invalid') + ')');
          let ref = null;
          try { ref = check ? check(c.data) : null; } catch (e) { ref = null; }
          if (ref === verdict) n.ajvAgrees++; else { n.ajvDiffers++; ajvOdd.push(name + ' (Ajv: ' + (ref === null ? 'cannot compile' : ref) + ', suite: ' + c.valid + ')'); }
        }
      }
    }
    t.diagnostic(draft + ': ' + n.passed + ' passed, ' + n.skipped + ' skipped (' + JSON.stringify(skippedWhy) + '); Ajv agrees with the page on ' + n.ajvAgrees + ', differs on ' + n.ajvDiffers);
    for (const x of ajvOdd) t.diagnostic('Ajv differs: ' + x);
    assert.deepEqual(wrong, [], 'the page validator differs from the suite');
    assert.ok(n.passed > 1000, 'the suite was read');
  });
}
