// A secret learned in one exchange (a request's bearer token, kept as a fingerprint only) and echoed
// by another written in pieces a reader reads as one: two CDATA sections, halves an XML comment
// splits, two JSON strings side by side, two items of an array. A configured secret was found so (by
// its spellings); a learned one was shown as sent. Each piece is now masked with the secret's marker,
// and pieces that join into nothing learned stay as sent.
import { describe, expect, it } from 'vitest';
import { learnedA } from './helpers/echo-exchanges.js';

const BEARER = 'AbTok-9fQzLm2XyW7kR';
const learned = () => learnedA('alice-pieces', 'Pw0rd-Hunter2-Qx7v', BEARER).scope();
const [A, B] = [BEARER.slice(0, 8), BEARER.slice(8)];
const MARK = `«secret: ${BEARER.length} chars»`;

/** Each way of writing two pieces, with what stands between them. */
const WRITTEN: Record<string, (a: string, b: string) => string> = {
  'two CDATA sections': (a, b) => `<x><![CDATA[${a}]]><![CDATA[${b}]]></x>`,
  'halves an XML comment splits': (a, b) => `<x>${a}<!-- cut -->${b}</x>`,
  'two JSON strings side by side': (a, b) => `{"note":"${a}" "${b}"}`,
  'two items of a JSON array': (a, b) => `["${a}","${b}"]`,
};

describe('a learned token written in pieces a reader reads as one', () => {
  for (const [how, write] of Object.entries(WRITTEN)) {
    it(`${how}: each piece masked with the token's marker; other pieces shown as sent`, () => {
      expect(learned().text(write(A, B))).toBe(write(MARK, MARK));
      const other = write(A, 'nothing-learned');
      expect(learned().text(other)).toBe(other);
    });
  }
});
