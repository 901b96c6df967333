// The JSONP language twice: as the JSONP check reads an answer (lib/json/jsonp.ts) and as the exported
// OpenAPI document describes it (JSONP_PATTERN). Each sample is judged by every check and matched by
// the pattern as a JSON Schema validator matches it (ECMA-262, the u flag): both must agree with
// the sample's stated reading, accepted or refused. Beyond any pattern: which safe name was asked
// for (the check compares it; the document says so in words) and whether the argument is JSON.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { login } from '../lib/contract/operations.js';
import { JSONP_PATTERN, OPENAPI_FILE } from '../lib/contract/openapi.js';
import { CALLBACK_NAME, PROBE } from '../lib/engine/probes.js';
import { changed, goodExchanges, judged } from './helpers/exchanges.js';

const record = readFileSync(new URL('../fixtures/golden/login.json', import.meta.url), 'utf8').split('\n\n').slice(1).join('\n\n');
const cb = CALLBACK_NAME;
const pattern = new RegExp(JSONP_PATTERN, 'u');

const ACCEPTED: Array<[why: string, body: string]> = [
  ['the bare call', `${cb}(${record})`],
  ['a trailing ";" and whitespace around', ` \n${cb}( ${record} ) ;\n`],
  ['a leading block comment (the Rosetta-Flash guard)', `/**/${cb}(${record})`],
  ['Express\'s typeof guard', `/**/ typeof ${cb} === 'function' && ${cb}(${record});`],
  ['a typeof guard with == and double quotes', `typeof ${cb} == "function" && ${cb}(${record})`],
  ['a trailing line comment', `${cb}(${record}); // done`],
  ['a trailing line comment holding ")"', `${cb}(${record});//x)`],
  ['a trailing block comment', `${cb}(${record}) /* x */`],
  ['a leading line comment', `// answer\n${cb}(${record})`],
  ['a block comment with stars and a slash inside', `/* a ** / b **/${cb}(${record})`],
  ['a byte-order mark before the call', `\uFEFF${cb}(${record})`],
  ['a line separator after the call', `${cb}(${record})\u2028`],
];

const REFUSED: Array<[why: string, body: string]> = [
  ['plain JSON', record],
  ['code after the call', `${cb}(${record}); alert({})`],
  ['code after a line comment that U+2028 ends', `${cb}(${record}) //x\u2028alert({})`],
  ['code after a line comment that \\r ends', `${cb}(${record}) //x\ralert({})`],
  ['code before the call', `/*x*/alert(1);${cb}(${record})`],
  ['a guard naming another function', `typeof other === 'function' && ${cb}(${record})`],
  ['a comment between the name and the call', `${cb}/**/(${record})`],
  ['a block comment never closed', `${cb}(${record}) /* x`],
  ['two semicolons', `${cb}(${record});;`],
  ['an array, not an object', `${cb}([1])`],
  ['many line comments, then code', `${cb}(${record})${'//'.repeat(40)}\nx`],
];

const acceptedByChecks = (body: string): boolean => {
  const results = judged(changed(goodExchanges(), PROBE.callback(login), { body }).values());
  return [...results.values()].every((r) => r.status !== 'fail');
};

describe('the JSONP check and the OpenAPI pattern read one language', () => {
  for (const [why, body] of ACCEPTED) {
    it(`both accept ${why}`, () => {
      expect({ check: acceptedByChecks(body), pattern: pattern.test(body) }).toEqual({ check: true, pattern: true });
    });
  }
  for (const [why, body] of REFUSED) {
    it(`both refuse ${why}`, () => {
      expect({ check: acceptedByChecks(body), pattern: pattern.test(body) }).toEqual({ check: false, pattern: false });
    });
  }
  it('the exported document carries the pattern', () => {
    expect(readFileSync(new URL(`../fixtures/${OPENAPI_FILE}`, import.meta.url), 'utf8')).toContain(JSON.stringify(JSONP_PATTERN));
  });
});
