// schema.js follows a $ref that is "#" or a JSON pointer from the root by itself; schema-ids.js,
// embedded only where a schema has an $id, an anchor, a dynamic ref or a ref by URI, adds the
// index. Both must name the same schema for every ref schema.js follows alone, so a page without
// the index resolves exactly as one with it. Loaded from templates/min/, as pages embed them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadParts, pageValidator } from './page-validator.mjs';

const schemaParts = (parts) => loadParts(parts).schema;

// Roots without $id or anchors, as most tools write them (and hostile keys).
const ROOTS = [
  { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'string' }, 'a/b': { const: 1 }, 'x~y': { const: 2 }, 'sp ace': { const: 3 }, '%41': { const: 4 }, '': { const: 5 }, n: null, f: false } },
  { definitions: { list: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] }, __proto__x: { const: 0 } } },
  true,
  false,
  { properties: { constructor: { type: 'string' }, toString: { const: 1 } } },
];
const REFS = [
  '#', '#/', '#/$defs/A', '#/$defs/a~1b', '#/$defs/x~0y', '#/$defs/sp ace', '#/$defs/sp%20ace', '#/$defs/%2541',
  '#/$defs/%41', '#/$defs/', '#/$defs/n', '#/$defs/f', '#/$defs/missing', '#/$defs/A/type', '#/$defs/%zz', '#/$defs/%E0%A4%A',
  '#/definitions/list/items/1', '#/definitions/list/items/2', '#/definitions/list/items/-1', '#/definitions/__proto__x',
  '#/properties/constructor', '#/properties/toString', '#/properties/hasOwnProperty', '#/properties/__proto__', '#A', '#a/b',
  '#/$defs/A#', '#/$defs/"q"', '#/$defs/<x>', '#/$defs/a\\b', 5, null,
];

test('schema.js alone resolves every "#" ref as the index does', () => {
  const alone = schemaParts(['schema.js']);
  const full = schemaParts(['schema.js', 'schema-ids.js']);
  assert.equal(alone.index({}), undefined, 'no index without schema-ids.js');
  assert.ok(full.index({}), 'schema-ids.js offers the index');
  let compared = 0;
  for (const root of ROOTS) {
    for (const ref of REFS) {
      const a = alone.resolve(root, ref, root), b = full.resolve(root, ref, root);
      assert.equal(a?.s, b?.s, `${JSON.stringify(ref)} in ${JSON.stringify(root)}`);
      assert.equal(a?.b, b?.b, `base of ${JSON.stringify(ref)}`);
      assert.equal(alone.pointer(root, ref, root), full.pointer(root, ref, root));
      compared++;
    }
  }
  // A few resolve to something: the comparison is not only of nulls.
  assert.equal(alone.resolve(ROOTS[0], '#/$defs/a~1b', ROOTS[0]).s.const, 1);
  assert.equal(alone.resolve(ROOTS[0], '#/$defs/sp%20ace', ROOTS[0]).s.const, 3);
  assert.equal(alone.resolve(ROOTS[0], '#', ROOTS[0]).s, ROOTS[0]);
  assert.ok(compared > 100);
});

test('refs schema.js cannot follow alone need the index, as the generator embeds it', () => {
  const alone = schemaParts(['schema.js']);
  const full = schemaParts(['schema.js', 'schema-ids.js']);
  const root = { $id: 'https://example.com/root.json', $defs: { A: { $anchor: 'a', type: 'string' }, B: { $id: 'b.json', type: 'number' } } };
  assert.equal(full.resolve(root, '#a', root).s, root.$defs.A);
  assert.equal(full.resolve(root, 'b.json', root).s, root.$defs.B);
  assert.equal(alone.resolve(root, '#a', root), null);
  assert.equal(alone.resolve(root, 'b.json', root), null);
});

test('the validator without the index keeps draft-07 rules and the document base', () => {
  const alone = pageValidator({ ids: false }), full = pageValidator();
  const D7 = 'http://json-schema.org/draft-07/schema#';
  const cases = [
    // draft-07: a $ref replaces its siblings (maxLength is not checked), prefixItems means nothing.
    [{ $schema: D7, definitions: { a: { type: 'string' } }, properties: { x: { $ref: '#/definitions/a', maxLength: 1 } } }, { x: 'abc' }, true],
    [{ $schema: D7, prefixItems: [{ type: 'string' }] }, [1], true],
    // 2020-12: both apply.
    [{ $defs: { a: { type: 'string' } }, properties: { x: { $ref: '#/$defs/a', maxLength: 1 } } }, { x: 'abc' }, false],
    [{ prefixItems: [{ type: 'string' }] }, [1], false],
    // A recursive list through "#".
    [{ type: 'array', items: { anyOf: [{ type: 'integer' }, { $ref: '#' }] } }, [1, [2, [3, 'x']]], false],
    [{ type: 'array', items: { anyOf: [{ type: 'integer' }, { $ref: '#' }] } }, [1, [2, [3]]], true],
  ];
  for (const [schema, value, valid] of cases) {
    assert.equal(full.valid(schema, value), valid, JSON.stringify(schema));
    assert.equal(alone.valid(schema, value), valid, 'without schema-ids.js: ' + JSON.stringify(schema));
    assert.equal(JSON.stringify(alone.validate(schema, value)), JSON.stringify(full.validate(schema, value)));
  }
});
