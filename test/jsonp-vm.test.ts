// A JSONP body is JavaScript: run it in a fresh node:vm context and see the named function
// called exactly once, with the same record as the plain JSON response.
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { call, useReference } from './helpers/reference.js';

const ref = useReference();

describe('JSONP executed in a JavaScript VM', () => {
  for (const path of ['/supportstateuser', '/user/confirmemail']) {
    it(`calls the callback once with the record of ${path}`, async () => {
      const plain = JSON.parse((await call(ref.url + path, { json: {} })).body) as unknown;
      const jsonp = await call(`${ref.url}${path}?callback=onRecord`, { json: {} });
      const calls: unknown[][] = [];
      runInNewContext(jsonp.body, { onRecord: (...args: unknown[]) => { calls.push(args); } }, { timeout: 30_000 });
      expect(calls).toHaveLength(1);
      expect(calls[0]).toHaveLength(1);
      expect(calls[0]![0]).toEqual(plain);
    });
  }
});
