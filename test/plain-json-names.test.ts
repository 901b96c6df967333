// The plain JSON path (lib/json/plain-json.ts) finds a repeated member name by the number of a name it
// knows, not by looking the name up in the object: these texts are built to slip past a wrong
// bookkeeping of those numbers (a nested object taking the parent's name, an escaped spelling, a full
// table of names), and each must be handed back to the full path, which reports the repeat.
import { describe, expect, it } from 'vitest';
import { parseJson, parseJsonSlowly } from '../lib/json/parse.js';
import { NOT_PLAIN, plainJson } from '../lib/json/plain-json.js';

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
