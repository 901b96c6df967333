// The plain JSON path (lib/json/plain-json.ts) lists a large object's names as it reads them, and
// finds a repeated member name by the number of a name it
// knows, not by looking the name up in the object: these texts are built to slip past a wrong
// bookkeeping of those numbers (a nested object taking the parent's name, an escaped spelling, a full
// table of names), and each must be handed back to the full path, which reports the repeat.
import { describe, expect, it } from 'vitest';
import { parseJson, parseJsonSlowly } from '../lib/json/parse.js';
import { NOT_PLAIN, plainJson, plainJsonListed } from '../lib/json/plain-json.js';
import type { JsonObject } from '../lib/json/value.js';

/** Handed back by the plain path, and reported by parseJson as the full path reports it. */
function handedBack(text: string): void {
  expect(plainJson(text), text.slice(0, 80)).toBe(NOT_PLAIN);
  const [fast, slow] = [parseJson(text), parseJsonSlowly(text)];
  expect(fast).toEqual(slow);
}

/** Read by the plain path as JSON.parse reads it. */
function read(text: string): void {
  const v = plainJson(text);
  expect(v, text.slice(0, 80)).not.toBe(NOT_PLAIN);
  expect(JSON.stringify(v)).toBe(JSON.stringify(JSON.parse(text)));
}

const members = (names: readonly string[]) => `{${names.map((n, i) => `"${n}":${i}`).join(',')}}`;

describe('repeated member names on the plain path', () => {
  it('finds a name repeated in an object after a nested object took the same name', () => {
    for (let round = 0; round < 3; round++) { // the names unknown, then known, then followed by guesses
      handedBack('{"a":1,"b":{"a":2},"a":3}');
      handedBack('{"a":1,"b":[{"a":2},{"a":3}],"a":4}');
      handedBack('{"x":{"x":{"x":1,"z":{"x":2}},"y":0,"x":3}}');
      read('{"a":1,"b":{"a":2,"b":{"a":3}},"c":[{"a":1},{"a":2}]}');
      read('[{"a":1,"b":2},{"a":3,"b":4},{"b":5,"a":6}]');
    }
  });

  it('finds a name repeated in another spelling, whichever comes first', () => {
    read('{"a":1,"b":2}');
    handedBack('{"a":1,"\\u0061":2}');
    handedBack('{"\\u0061":1,"a":2}');
    handedBack('{"\\u0061":1,"b":2,"a":3}');
    handedBack('{"b":0,"\\u0061":1,"b":2}');
    read('{"\\u0061":1,"b":2}');
  });

  it('hands back a name Object.prototype answers, however spelled', () => {
    for (const t of ['{"__proto__":{}}', '{"a":1,"__proto__":[]}', '{"__pro\\u0074o__":{}}', '{"constructor":1}', '{"a":{"hasOwnProperty":1}}', '{"valueOf":1}']) handedBack(t);
    // In a large object too (read once before, so that it starts without a prototype), at any place.
    const large = Array.from({ length: 30 }, (_, i) => `p${i}`);
    for (const name of ['__proto__', '__pro\\u0074o__', 'toStr\\u0069ng', 'isPrototypeOf']) {
      for (const at of [0, 17, 30]) {
        read(`{"x":${members(large)}}`);
        handedBack(`{"x":${members([...large.slice(0, at), name, ...large.slice(at)])}}`);
      }
    }
  });

  it('finds repeats once the table of known names is full, and after it was emptied', () => {
    const many = Array.from({ length: 5000 }, (_, i) => `n${i}`);
    read(members(many)); // fills the table: the later names are read unknown
    handedBack(members([...many, 'n10'])); // known before the table filled
    handedBack(members([...many, 'n4900'])); // met when the table was full
    handedBack(members(['n4900', ...many]));
    read(members(many.slice(0, 100)));
    read('{"a":1,"b":{"a":2}}'); // the table was emptied before this text: the names are learned anew
    handedBack('{"a":1,"b":{"a":2},"a":3}');
  });
});

describe('names listed as read', () => {
  /** Every listed object's names are Object.keys of it; how many objects were listed. */
  function listedAsObjectKeys(text: string): number {
    const r = plainJsonListed(text);
    if (r === NOT_PLAIN) throw new Error(`not read: ${text.slice(0, 40)}`);
    for (const [o, keys] of r.listed ?? []) expect(keys).toEqual(Object.keys(o));
    return r.listed?.size ?? 0;
  }
  const names = Array.from({ length: 40 }, (_, i) => `m${i}`);

  it('lists a large object\'s names as Object.keys lists them, at any depth', () => {
    expect(listedAsObjectKeys(members(names))).toBe(1);
    expect(listedAsObjectKeys(`{"a":${members(names)},"b":[${members(names)},${members(names.slice(0, 3))}],"c":1}`)).toBe(2);
    expect(listedAsObjectKeys(`{${names.map((n) => `"${n}":${members(names)}`).join(',')}}`)).toBe(41);
    expect(listedAsObjectKeys(members(['4294967295', '01', '-1', '1.5', '\\u0061', ...names]))).toBe(1); // no array index among them
    expect(listedAsObjectKeys(members(names.slice(0, 16)))).toBe(0);
  });

  it('gives each listed object\'s values in the order of its names, the very values it holds (past an escaped name too)', () => {
    const texts = [
      members(names),
      `{"a":${members(names)},"b":[${members(names)},{"x":[1,{"y":2}]}],"c":1}`,
      `{${names.map((n, i) => `"${n}":${i % 3 ? members(names) : `[${i},"v${i}",null,true]`}`).join(',')}}`,
      members(['\\u0061', ...names]), // an escaped name: the object is built member by member from its first name
      members([...names.slice(0, 20), '\\u0062', ...names.slice(20)]),
    ];
    for (const text of texts) {
      const r = plainJsonListed(text);
      if (r === NOT_PLAIN) throw new Error(`handed back: ${text.slice(0, 80)}`);
      expect(r.listed?.size, text.slice(0, 80)).toBeGreaterThan(0);
      expect(r.listedValues?.size).toBe(r.listed?.size);
      for (const [o, keys] of r.listed ?? []) {
        const values = r.listedValues?.get(o);
        expect(values?.length).toBe(keys.length);
        expect(keys.filter((k, i) => values?.[i] !== o[k])).toEqual([]);
      }
    }
  });

  it('leaves out an object with an array index among its names (Object.keys puts those first)', () => {
    for (const index of ['7', '0', '4294967294', '\\u0037']) {
      const text = members([...names.slice(0, 20), index, ...names.slice(20)]);
      expect(listedAsObjectKeys(text), index).toBe(0);
      expect(Object.keys(plainJson(text) as JsonObject)[0]).toBe(JSON.parse(`"${index}"`));
    }
  });
});
