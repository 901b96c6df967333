// A secret learned in one exchange and echoed base64-encoded in another (a response body, a header,
// a URL, a check's message): found by decoding the base64 tokens of the shown text and looking up the
// tokens of what they decode to among the learned fingerprints, as hex and reversed tokens are. The
// secret at an offset of the decoded text (Basic user:password, a JSON document) is found too; a
// base64 value that decodes to nothing learned is shown exactly as sent.
import { describe, expect, it } from 'vitest';
import type { Redactor } from '../lib/reporting/redact.js';
import { echoHarRun, learnedA } from './helpers/echo-exchanges.js';

const PASSWORD = 'Pw0rd-Hunter2-Qx7v';
const BEARER = 'AbTok-9fQzLm2XyW7kR';
const USER = 'alice-b64';
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const b64url = (s: string): string => Buffer.from(s, 'utf8').toString('base64url');

/** Every base64 spelling of a secret the answer of exchange B holds. */
const echoes = (secret: string): Record<string, string> => ({
  base64: b64(secret),
  base64url: b64url(secret),
  'base64 of user:secret': b64(`${USER}:${secret}`),
  'base64 of a JSON document': b64(JSON.stringify({ note: 'as sent', credential: secret, n: 1 })),
});
/** Base64 of text holding nothing learned: shown as sent. */
const PLAIN = [b64('a plain value, nothing secret here'), b64url('{"page":2,"size":50,"order":"name"}')];

/** A redactor that learned exchange A (its password field and bearer token). */
const learned = (): Redactor => learnedA(USER, PASSWORD, BEARER);

describe('a secret learned in one exchange, echoed in base64 by another', () => {
  for (const [name, secret] of [['a password field', PASSWORD], ['an Authorization bearer token', BEARER]] as const) {
    it(`${name}: masked whole in base64, base64url, Basic user:secret and a JSON document, in a body, a header, a URL and a line`, () => {
      const other = learned().scope();
      for (const [how, echo] of Object.entries(echoes(secret))) {
        const mark = `«secret: ${echo.length} chars»`;
        expect(other.text(JSON.stringify({ echo })), how).toBe(JSON.stringify({ echo: mark }));
        expect(other.header('x-echo', echo), how).toBe(mark);
        expect(other.text(`http://example.test/echo/${echo}?v=${encodeURIComponent(echo)}`), how).toBe(`http://example.test/echo/${mark}?v=${mark}`);
        expect(other.line(`the answer echoed ${echo} back`), how).toBe(`the answer echoed ${mark} back`);
      }
    });
  }

  it('masks a base64 JSON document of 100 KiB whose first kilobytes hold the secret, and base64 written in \\u escapes', () => {
    const other = learned().scope();
    const big = b64(JSON.stringify({ credential: PASSWORD, padding: 'x'.repeat(100 * 1024) }));
    expect(other.text(JSON.stringify({ big }))).toBe(JSON.stringify({ big: `«secret: ${big.length} chars»` }));
    const echo = b64(PASSWORD);
    const escaped = [...echo].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    expect(other.text(`{"echo":"${escaped}"}`)).toBe(`{"echo":"«secret: ${echo.length} chars»"}`);
  });

  it('leaves base64 that decodes to nothing learned exactly as sent', () => {
    const other = learned().scope();
    for (const plain of PLAIN) {
      const text = JSON.stringify({ cursor: plain, path: `/x/${plain}` });
      expect(other.text(text)).toBe(text);
      expect(other.line(`next ${plain}`)).toBe(`next ${plain}`);
    }
  });
});

describe('--har: exchange A carries a password and a bearer token, exchange B answers with their base64', () => {
  it('no report file nor console line shows the base64 texts; a base64 value of nothing secret is shown as sent', async () => {
    const echoed = [...Object.values(echoes(PASSWORD)), ...Object.values(echoes(BEARER))];
    const answer = JSON.stringify({ userName: USER, releaseMessage: echoed.join(' '), echoes: echoed, plain: PLAIN });
    const { code, stderr, outputs } = await echoHarRun('fingerprint-base64-', [USER, USER], PASSWORD, BEARER, answer);
    expect(code, stderr).toBe(1);
    const shown = outputs.flatMap(([name, text]) => echoed.filter((e) => text.includes(e)).map((e) => `${e} in ${name}`));
    expect(shown).toEqual([]);
    const exchanges = outputs.find(([name]) => name === 'exchanges.json')![1];
    for (const plain of PLAIN) expect(exchanges).toContain(plain);
  }, 60_000);
});
