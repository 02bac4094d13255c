// The validator pages embed, loaded in Node from the minified parts (templates/min/) in a vm with a
// minimal window: schema.js and schema-ids.js's $ref index, the per-value checks of checks.js,
// formats.js and formats-net.js, and schema-check.js.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';

const MIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'templates', 'min');
const PARTS = ['schema.js', 'schema-ids.js', 'checks.js', 'formats.js', 'formats-net.js', 'schema-check.js'];

// window.McpGenUi after the given minified parts ran in a fresh vm with a minimal window (the
// runtime's extension points only).
export function loadParts(parts) {
  // The minifier renames internal names (min/names.json): the runtime's _on and _run too.
  const names = JSON.parse(readFileSync(path.join(MIN, 'names.json'), 'utf8'));
  const points = {};
  const McpGenUi = {
    [names._on]: (p, fn) => { (points[p] ||= []).push(fn); },
    [names._run]: (p, ...args) => (points[p] || []).map((fn) => fn(...args)),
  };
  const context = vm.createContext({ window: { McpGenUi }, URL, console });
  for (const f of parts) vm.runInContext(readFileSync(path.join(MIN, f), 'utf8'), context, { filename: 'min/' + f });
  return context.window.McpGenUi;
}

// A fresh page: {validate(schema, value) -> [{path, at, message}], valid(schema, value) -> bool}.
// { ids: false }: without schema-ids.js, as pages whose schemas have no $id, anchor or dynamic ref.
export function pageValidator({ ids = true } = {}) {
  const G = loadParts(PARTS.filter((p) => ids || p !== 'schema-ids.js'));
  const validate = (schema, value) => G.validate(schema, value);
  return { G, validate, valid: (schema, value) => validate(schema, value).length === 0 };
}
