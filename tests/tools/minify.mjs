// Minifies the readable builtin scripts under templates/ into templates/min/, which the binary
// embeds. `node tests/tools/minify.mjs` rewrites templates/min/; `--check` only reports stale
// files (exit 1), which is what tests/node/minified.test.mjs runs in CI.
//
// Terser is pinned in tests/package-lock.json, so the same sources always give the same bytes.
// Only safe transforms are enabled: no mangling of public property names (user templates in
// `templates_dir` may use any public property of window.McpGenUi and its objects) and no unsafe
// compress options, except
// function-to-arrow conversion and method shorthand, which the sources make safe by never using
// `this`, `arguments` or `new` on a function expression or an object literal's method.
// `hoist_vars` only moves `var` declarations to the top of their function (where the language
// puts them anyway), which lets one `var` statement declare them all.
//
// Internal properties, whose names start with `_` (`app._ctx`, `box.__err`, `schema.__refs`), are
// renamed to `_` and one or two letters, the same in every file (they are shared across files): the
// table is built from every script's `_` names in sorted order, so it is deterministic. A
// protocol field (`_meta`) keeps its name. A `_` name must never be spelled as a string literal
// other than in `o['_x']` or `'_x' in o` (terser renames only those forms).
import { readFile, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { minify } from 'terser';

export const TEMPLATES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../templates');
// Every script under templates/ (the page's parts, declared in src/generate/builtin/registry.rs,
// and the page glue app.js): a new part needs no entry here. Sorted, so the output never depends on
// the directory's order.
export const SCRIPTS = readdirSync(TEMPLATES).filter((n) => n.endsWith('.js')).sort();

/** Property names that look internal but belong to a protocol or the platform. */
const KEEP = new Set(['_meta', '__proto__']);

/** `_` names in a source: after a dot, or as an object literal key. */
function internalNames(src) {
  const out = new Set();
  for (const m of src.matchAll(/\.(_[A-Za-z_]\w*)\b|[{,]\s*(_[A-Za-z_]\w*)\s*:/g)) {
    const n = m[1] || m[2];
    if (!KEEP.has(n)) out.add(n);
  }
  return out;
}

let TABLE = null;
/** The shared renaming of internal properties: every script's `_` names, sorted, then `extra`. */
async function table(extra) {
  if (!TABLE) {
    const all = new Set();
    for (const name of SCRIPTS) for (const n of internalNames(await readFile(path.join(TEMPLATES, name), 'utf8'))) all.add(n);
    TABLE = [...all].sort();
  }
  const names = TABLE.concat([...internalNames(extra)].filter((n) => !TABLE.includes(n)).sort());
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const short = (i) => '_' + (i < letters.length ? letters[i] : letters[Math.floor(i / letters.length) - 1] + letters[i % letters.length]);
  // A short name that is also a long one goes to that name only.
  const out = {};
  let i = 0;
  for (const n of names) {
    let s = short(i++);
    while (names.includes(s) && s !== n) s = short(i++);
    out['$' + n] = s;
  }
  return out;
}

async function options(source) {
  return {
    ecma: 2020,
    compress: { passes: 3, unsafe_arrows: true, arrows: true, unsafe_methods: true, hoist_vars: true },
    mangle: { properties: { regex: /^_/, reserved: [...KEEP] } },
    nameCache: { props: { props: await table(source) } },
    format: { comments: false, ascii_only: false },
  };
}

/** The minified form of one readable script, ending with a newline. */
export async function minifyScript(name, source) {
  const out = await minify({ [name]: source }, await options(source));
  const code = `${out.code.trimEnd()}\n`;
  // The output is inlined into a <script> element: it must never end it or open a comment.
  if (/<\/script|<!--/i.test(code)) throw new Error(`${name}: minified output contains </script or <!--`);
  return code;
}

/** The renaming as templates/min/names.json: the generator applies it to override scripts. */
export async function namesJson() {
  const t = await table('');
  return `${JSON.stringify(Object.fromEntries(Object.entries(t).map(([k, v]) => [k.slice(1), v])), null, 1)}\n`;
}

/** Names of templates/min/ files that differ from what the sources minify to now. */
export async function stale({ write = false } = {}) {
  const out = [];
  for (const name of [...SCRIPTS, 'names.json']) {
    const min = name === 'names.json' ? await namesJson() : await minifyScript(name, await readFile(path.join(TEMPLATES, name), 'utf8'));
    const target = path.join(TEMPLATES, 'min', name);
    const now = await readFile(target, 'utf8').catch(() => '');
    if (now === min) continue;
    out.push(name);
    if (write) await writeFile(target, min);
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const changed = await stale({ write: !check });
  if (check && changed.length) {
    console.error(`templates/min is stale for ${changed.join(', ')}: run \`node tests/tools/minify.mjs\``);
    process.exit(1);
  }
  if (!check) console.log(changed.length ? `rewrote templates/min/${changed.join(', templates/min/')}` : 'templates/min is up to date');
}
