// ExchangeView.keysOf lists an object's names with Object.getOwnPropertyNames (faster than Object.keys
// on the plain parser's small objects): for every object of a parsed answer it must give exactly what
// Object.keys gives, in its order (array-index names first, then the rest as written), whichever
// parser read the body.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import type { JsonObject, JsonValue } from '../lib/json/value.js';

function view(body: string): ExchangeView {
  const ex: Exchange = {
    id: 'case-1.login', title: 'login', origin: { source: 'case', vouched: true, case: 1 },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: '{}' },
    response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from(body)),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
  return new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES });
}

/** Every object of a value, the value first. */
function objectsOf(v: JsonValue, out: JsonObject[] = []): JsonObject[] {
  if (Array.isArray(v)) for (const x of v) objectsOf(x, out);
  else if (v !== null && typeof v === 'object') {
    out.push(v);
    for (const k of Object.keys(v)) objectsOf(v[k]!, out);
  }
  return out;
}

const name = fc.oneof(fc.constantFrom('userName', 'email', '0', '12', '4294967295', '-1', '01', '__proto__', 'toString', 'constructor', 'a', ''), fc.string({ maxLength: 6 }));
const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 8 }));
const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('tree'), { maxLength: 4 }),
    fc.array(fc.tuple(name, tie('tree')), { maxLength: 40 }).map((members) => members)),
}));
/** JSON text of a tree: member lists written as objects, names possibly repeated (the last wins). */
const text = (t: unknown): string => (Array.isArray(t) && t.every((m) => Array.isArray(m) && m.length === 2 && typeof m[0] === 'string')
  ? `{${(t as [string, unknown][]).map(([k, v]) => `${JSON.stringify(k)}:${text(v)}`).join(',')}}`
  : Array.isArray(t) ? `[${t.map(text).join(',')}]` : JSON.stringify(t));

describe('ExchangeView.keysOf', () => {
  it('lists every object of a parsed answer as Object.keys does, names and order', () => {
    fc.assert(fc.property(fc.array(fc.tuple(name, tree), { maxLength: 60 }), (members) => {
      const v = view(text(members));
      const json = v.json();
      expect(json.ok).toBe(true);
      if (!json.ok) return;
      for (const o of objectsOf(json.value.value)) expect(v.keysOf(o)).toEqual(Object.keys(o));
    }), { numRuns: 500 });
  });

  it('lists a record of many names, with array-index names, as Object.keys does', () => {
    const names = ['7', ...Array.from({ length: 120 }, (_, i) => `member${i}`), '3', '__proto__', 'toString'];
    const v = view(`{${names.map((n, i) => `"${n}":${i % 3 ? `"v${i}"` : `{"inner${i}":${i},"0":1}`}`).join(',')}}`);
    const json = v.json();
    expect(json.ok).toBe(true);
    if (!json.ok) return;
    const objects = objectsOf(json.value.value);
    expect(objects.length).toBeGreaterThan(40);
    for (const o of objects) expect(v.keysOf(o)).toEqual(Object.keys(o));
    expect(v.keysOf(objects[0]!).slice(0, 3)).toEqual(['3', '7', 'member0']);
  });
});
