// A secret learned in one exchange and echoed by another in a spelling a reader undoes: base64 broken
// into MIME lines (CRLF, or escaped in a JSON string) or around bytes that are no UTF-8, base64 of
// base64 (percent-encoded too), HTML references around or within it (&#64;, &commat;, &#45 without its
// semicolon), quoted-printable (=2D, soft line breaks), or joined to another word (bob@secret,
// secret.txt). Each is masked; the same spellings of values nothing learned are shown exactly.
import { describe, expect, it } from 'vitest';
import { Redactor } from '../lib/reporting/redact.js';
import { echoHarShown, learnedA } from './helpers/echo-exchanges.js';

const PASSWORD = 'Pw0rd-Hunter2-Qx7v';
const TOKEN = 'Tk.Zf9Qz@Lm2XyW7kR';
const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');
/** Base64 as MIME writes it: lines of 76 characters, CRLF between. */
const mime = (s: string): string => b64(s).replace(/.{76}(?=.)/g, '$&\r\n');
/** A document whose base64 puts the secret across a MIME line break (the secret is its bytes 50 to
 *  67 or 68; a line holds 57). */
const doc = (secret: string): string => JSON.stringify({ note: 'n'.repeat(25), credential: secret, more: 'm'.repeat(90) });
/** Bytes that are no UTF-8 before the secret (a serialized session); base64 starting ++++ and //4A. */
const binary = (lead: number[], secret: string): string => b64(Buffer.concat([Buffer.from(lead), Buffer.from(`:${secret}`)]));
/** Quoted-printable of a text: = and - as =3D and =2D, a soft line break after its tenth character. */
const qp = (s: string): string => { const e = s.replace(/=/g, '=3D').replace(/-/g, '=2D'); return `${e.slice(0, 10)}=\r\n${e.slice(10)}`; };

/** The spellings of a learned secret exchange B's answer holds, by name. */
const echoes = (secret: string): Record<string, string> => ({
  'MIME base64 lines': mime(doc(secret)),
  'base64 around bytes that are no UTF-8, / escaped as \\/': binary([0xff, 0xfe, 0x00], secret),
  'base64 around bytes that are no UTF-8, + escaped as \\u002b': binary([0xfb, 0xef, 0xbe], secret),
  'base64 of base64': b64(b64(secret)),
  'base64 of a document holding base64': b64(JSON.stringify({ inner: b64(`bob:${secret}`) })),
  'percent-encoded base64 of base64': encodeURIComponent(b64(b64(`>${secret}?`))),
  'joined by &#64;': `bob&#64;${secret}`,
  'joined by @': `bob@${secret}`,
  'numeric references without semicolons within': secret.replace(/[-.@]/g, (ch) => `&#${ch.charCodeAt(0)}`),
  'named references within': secret.replace(/-/g, '&#x2d').replace(/\./g, '&period;').replace(/@/g, '&commat;'),
  'quoted-printable =3D before, =2D within, a soft line break': `key=3D${qp(secret)}`,
  'quoted-printable, LF soft line break': `${secret.slice(0, 6)}=\n${secret.slice(6)}`,
  'a file name': `${secret}.txt`,
});

/** Non-secret values in the same spellings: shown as sent. */
const PLAIN = [
  mime(doc('nothing-secret-here')),
  b64(b64('a plain value')),
  b64(JSON.stringify({ inner: b64('bob:nothing-secret-here') })),
  binary([0xff, 0xfe, 0x00], 'nothing-secret-here'),
  'bob&#64;example-host&period;internal &amp;&commat;&#45x',
  'a=3Db=2Dc soft=\r\nbreak',
  'alice.smith-report Pw0rd-Hunter3-Qx7v.txt',
];

/** A redactor that learned exchange A (its password field and bearer token). */
const learned = (): Redactor => learnedA('alice', PASSWORD, TOKEN);

describe('a secret learned in one exchange, echoed by another in a spelling a reader undoes', () => {
  for (const [name, secret] of [['a password field', PASSWORD], ['a bearer token', TOKEN]] as const) {
    it(`${name}: no spelling of it is left in a JSON body, an HTML body or a line`, () => {
      const other = learned().scope();
      for (const [how, echo] of Object.entries(echoes(secret))) {
        for (const shown of [other.text(JSON.stringify({ echo })), other.text(`<html><body><p>${echo}</p></body></html>`), other.line(`echoed ${echo} back`)]) {
          expect(shown, how).toMatch(/«(?:secret|personal): /);
          expect(shown.includes(echo), how).toBe(false);
        }
      }
    });
  }

  it('a configured secret echoed as MIME base64 lines in a JSON string (line breaks and / escaped) is masked', () => {
    const other = new Redactor({ showPersonalData: false, secrets: [PASSWORD] }).scope();
    // The secret is bytes 50 to 67: across the first line break (a line holds 57).
    const echo = binary([0xff, 0xfe, 0x00], `${'x'.repeat(45)} ${PASSWORD}`).replace(/.{76}(?=.)/g, '$&\r\n');
    const shown = other.text(JSON.stringify({ echo }).replace(/\//g, '\\/'));
    expect(shown).toContain('«secret header: ');
    expect(shown).not.toContain(echo.slice(68, 76)); // the end of the first line: the secret's start
    expect(shown).not.toContain(echo.slice(78, 78 + 14)); // the start of the second: its end
  });

  it('masks only the secret where a word is joined to it', () => {
    const other = learned().scope();
    expect(other.line(`bob&#64;${PASSWORD} and ${PASSWORD}.txt`)).toBe(`bob&#64;«secret: 18 chars» and «secret: 18 chars».txt`);
  });

  it('leaves the same spellings of values nothing learned exactly as sent', () => {
    const other = learned().scope();
    for (const plain of PLAIN) {
      expect(other.text(JSON.stringify({ plain }))).toBe(JSON.stringify({ plain }));
      expect(other.line(`next ${plain} end`)).toBe(`next ${plain} end`);
    }
  });
});

describe('--har: exchange A carries a password and a bearer token, exchange B answers with them in those spellings', () => {
  it('no report file nor console line shows them; the same spellings of values nothing learned are shown as sent', async () => {
    const echoed = [...Object.values(echoes(PASSWORD)), ...Object.values(echoes(TOKEN))];
    const { code, stderr, shown, changed } = await echoHarShown('fingerprint-spellings-', PASSWORD, TOKEN, echoed, PLAIN);
    expect(code, stderr).toBe(1);
    expect(shown).toEqual([]);
    expect(changed).toEqual([]);
  }, 60_000);
});
