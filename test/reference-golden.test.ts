// The reference's exact bytes, read by eye once and held here. UPDATE_GOLDEN=1 rewrites them
// (then read the diff before committing).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { call, postSoap, useReference } from './helpers/reference.js';

const ref = useReference();
const golden = (name: string) => new URL(`../fixtures/golden/${name}`, import.meta.url);

const cases: [string, () => Promise<{ type: string | null; body: string }>][] = [
  ['login.json', () => call(`${ref.url}/supportstateuser`, { json: { userName: 'jdoe.support' } })],
  ['login.jsonp', () => call(`${ref.url}/supportstateuser?callback=onLogin`, { json: {} })],
  ['login.xml', () => call(`${ref.url}/supportstateuser`, { json: {}, headers: { accept: 'application/xml' } })],
  ['confirm.json', () => call(`${ref.url}/user/confirmemail`, { json: {} })],
  ['confirm.jsonp', () => call(`${ref.url}/user/confirmemail?callback=onConfirm`, { json: {} })],
  ['logout.soap.xml', () => postSoap(`${ref.url}/soap11`)],
];

describe('golden responses', () => {
  for (const [name, get] of cases) {
    it(`${name} is byte-for-byte as recorded`, async (ctx) => {
      const r = await get();
      const actual = `Content-Type: ${r.type}\n\n${r.body}`;
      if (process.env.UPDATE_GOLDEN) {
        writeFileSync(golden(name), actual);
        ctx.skip('re-recorded (UPDATE_GOLDEN): read the diff before committing');
      }
      expect(existsSync(golden(name)), `fixtures/golden/${name} is missing: record it with UPDATE_GOLDEN=1`).toBe(true);
      expect(actual).toBe(readFileSync(golden(name), 'utf8'));
    });
  }
});
