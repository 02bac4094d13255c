// Minifies the readable builtin scripts under templates/ into templates/min/, which the binary
// embeds. `node tests/tools/minify.mjs` rewrites templates/min/; `--check` only reports stale
// files (exit 1), which is what tests/node/minified.test.mjs runs in CI.
//
// Terser is pinned in tests/package-lock.json, so the same sources always give the same bytes.
// Only safe transforms are enabled: no property mangling (user templates in `templates_dir` may
// use any property of window.McpGenUi and its objects) and no unsafe compress options, except
// function-to-arrow conversion and method shorthand, which the sources make safe by never using
// `this`, `arguments` or `new` on a function expression or an object literal's method.
// `hoist_vars` only moves `var` declarations to the top of their function (where the language
// puts them anyway), which lets one `var` statement declare them all.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { minify } from 'terser';

export const TEMPLATES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../templates');
export const SCRIPTS = ['runtime.js', 'hosts.js', 'viewtools.js', 'forms.js', 'llm.js', 'schema.js', 'validate.js', 'view.js', 'form.js', 'form-extra.js', 'app.js'];

const OPTIONS = {
  ecma: 2020,
  compress: { passes: 3, unsafe_arrows: true, arrows: true, unsafe_methods: true, hoist_vars: true },
  mangle: true,
  format: { comments: false, ascii_only: false },
};

/** The minified form of one readable script, ending with a newline. */
export async function minifyScript(name, source) {
  const out = await minify({ [name]: source }, OPTIONS);
  const code = `${out.code.trimEnd()}\n`;
  // The output is inlined into a <script> element: it must never end it or open a comment.
  if (/<\/script|<!--/i.test(code)) throw new Error(`${name}: minified output contains </script or <!--`);
  return code;
}

/** Names of templates/min/ files that differ from what the sources minify to now. */
export async function stale({ write = false } = {}) {
  const out = [];
  for (const name of SCRIPTS) {
    const src = await readFile(path.join(TEMPLATES, name), 'utf8');
    const min = await minifyScript(name, src);
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
