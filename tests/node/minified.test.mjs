// templates/min/ holds what the binary embeds: it must be exactly the minified readable sources.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SCRIPTS, TEMPLATES, minifyScript, stale } from '../tools/minify.mjs';

test('templates/min is the minified form of templates/*.js', async () => {
  const changed = await stale();
  assert.deepEqual(changed, [], `templates/min is stale for ${changed.join(', ')}: run \`node tests/tools/minify.mjs\``);
});

test('minified scripts keep the public names and constructors', async () => {
  const src = await readFile(path.join(TEMPLATES, 'runtime.js'), 'utf8');
  const min = await minifyScript('runtime.js', src);
  // LLM-written pages call `new PostMessageTransport(...)` and `new App(...)`: neither may become
  // an arrow function.
  assert.match(min, /PostMessageTransport=class/);
  assert.doesNotMatch(min, /\.App=\([^)]*\)=>/);
  for (const name of ['App', 'h', 'applyDocumentTheme', 'getDocumentTheme', 'applyHostStyleVariables', 'applyHostFonts']) {
    assert.ok(min.includes(`.${name}=`), name);
  }
});

test('minification is deterministic and follows every change of the source', async () => {
  const src = await readFile(path.join(TEMPLATES, 'runtime.js'), 'utf8');
  const a = await minifyScript('x.js', src);
  assert.equal(a, await minifyScript('x.js', src));
  assert.notEqual(a, await minifyScript('x.js', src.replace("'2026-01-26'", "'2026-01-27'")));
});
