// The plain JSON path keeps its stacks of names and values from one text to the next (plain-json.ts
// STACKS): nothing of a text stays in them once it is read, whether it was read whole or handed back
// midway, and stacks grown past what is kept are dropped; texts read after either come out as
// JSON.parse makes them.
import { describe, expect, it } from 'vitest';
import { NOT_PLAIN, plainJson, plainJsonBytes, plainJsonStacks } from '../lib/json/plain-json.js';

const members = (n: number, prefix: string) => `{${Array.from({ length: n }, (_, i) => `"${prefix}${i}":{"v":"value ${i} of ${prefix}","w":[${i},"${prefix}"]}`).join(',')}}`;

/** plainJson of `text` is JSON.parse's value (JSON-equal, keys in order). */
function reads(text: string): void {
  const v = plainJson(text);
  expect(v, text.slice(0, 60)).not.toBe(NOT_PLAIN);
  expect(JSON.stringify(v)).toBe(JSON.stringify(JSON.parse(text)));
}

describe('the plain path\'s stacks between texts', () => {
  it('hold no name or value of a text once it is read, whole or handed back midway', () => {
    reads(`{"a":${members(40, 'p')},"b":${members(20, 'q')}}`);
    expect(plainJsonStacks().holding).toBe(0);
    expect(plainJsonStacks().places).toBeGreaterThan(40);
    // Handed back deep inside an object of many members, its parents' members still on the stacks.
    for (const broken of [`{"a":${members(40, 'p').slice(0, -1)},"x":{"y":1,"z":[1,2,{"k":"v","k":"w"}]}}}`, `{"a":${members(30, 'p')},"b":{"c":"d","e":1.5}}`]) {
      expect(plainJson(broken)).toBe(NOT_PLAIN);
      expect(plainJsonStacks().holding).toBe(0);
    }
    expect(plainJsonBytes(Buffer.from(`{"a":${members(25, 'é')},"b":{"c":"\xff"}}`, 'latin1'))).toBe(NOT_PLAIN); // no UTF-8: not read at all
    expect(plainJsonBytes(Buffer.from(`{"a":${members(25, 'é')},"b":{"c":1e5}}`, 'utf8'))).toBe(NOT_PLAIN);
    expect(plainJsonStacks().holding).toBe(0);
    reads(`{"a":${members(40, 'p')}}`);
  });

  it('are dropped once a text grew them past what is kept, and read the next texts as before', () => {
    reads(members(5000, 'm'));
    expect(plainJsonStacks()).toEqual({ holding: 0, places: 0 });
    reads(`{"a":${members(40, 'p')},"b":[${members(3, 'm')},${members(2, 'q')}]}`);
    expect(plainJsonStacks().holding).toBe(0);
  });
});
