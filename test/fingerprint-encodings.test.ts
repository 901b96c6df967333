// A secret learned in one exchange and echoed by another in an encoding a program or a person undoes:
// hex byte by byte (spaces, colons, dashes, \x), hex of its UTF-16 bytes, CSS and JavaScript escapes, full-width letters, base32 (in capitals,
// in groups with spaces or dashes, or in lower case), base64 of its UTF-16LE or UTF-16BE bytes (Java's, a byte-order mark first), base64 in groups of
// four, or fused to letters. Each is masked, whole and nothing around it; the same spellings of values
// nothing learned, a near miss, long lower-case words that are base32 as written, and a short learned
// value inside a word are shown exactly.
import { describe, expect, it } from 'vitest';
import { FingerprintSet } from '../lib/reporting/fingerprints.js';
import { Redactor } from '../lib/reporting/redact.js';
import { echoHarShown, exchange, learnedA } from './helpers/echo-exchanges.js';
import { base32, groups, spellings } from './helpers/encoded-spellings.js';

const PASSWORD = 'Pw0rd-Hunter2-Qx7v';
const TOKEN = 'Tk.Zf9Qz@Lm2XyW7kR';
/** Values nothing learned, in the same spellings, and near misses: shown exactly. */
const UNLEARNED = ['nothing-secret-here', 'Pw0rd-Hunter3-Qx7v'];
const PLAIN = [
  ...UNLEARNED.flatMap((v) => Object.values(spellings(v))),
  ...UNLEARNED.map((v) => `xyz${v}abc`),
  // A learned value shorter than MIN_PART ("alice", personal) is never looked for inside a word.
  'malice aliceblue Xalicex',
  // Words that look like the encodings.
  'THE PASSWORD RESETLINK EXPIRED', 'with some more text here', '10 20 30 40 50 60 70 80 90', 'de:ad:be:ef:00:11:22:33:44',
  // Long words in lower case that are base32 as written.
  'passwordresetlinkexpired characteristically abcdefghijklmnopqrstuvwxyz234567 mzxw6ytboi======',
];

describe('a secret learned in one exchange, echoed by another in an encoding', () => {
  for (const [name, secret] of [['a password field', PASSWORD], ['a bearer token', TOKEN]] as const) {
    for (const [how, echo] of Object.entries(spellings(secret))) {
      it(`${name} as ${how}: masked whole in a JSON body, an HTML body and a line, the text around it kept`, () => {
        const other = learnedA('alice', PASSWORD, TOKEN).scope();
        expect(other.line(`echoed ${echo} back`)).toMatch(/^echoed «secret: \d+ chars» back$/);
        for (const shown of [other.text(JSON.stringify({ echo })), other.text(`<html><body><p>${echo}</p></body></html>`)]) {
          expect(shown).toMatch(/«secret: \d+ chars»/);
          expect(shown.includes(echo)).toBe(false);
        }
      });
    }
    it(`${name} fused to letters on both sides, or on one: only the secret is masked`, () => {
      const other = learnedA('alice', PASSWORD, TOKEN).scope();
      expect(other.line(`id xyz${secret}abc, ${secret}Qz and Qz${secret} end`)).toBe('id xyz«secret: 18 chars»abc, «secret: 18 chars»Qz and Qz«secret: 18 chars» end');
    });
  }

  it('the hex of a secret\'s UTF-16 bytes (LE or BE, in one run, or a dump with dashes): masked whole; the same of values nothing learned: shown exactly as sent', () => {
    const other = learnedA('alice', PASSWORD, TOKEN).scope();
    const utf16 = (v: string, be: boolean): Buffer => { const b = Buffer.from(v, 'utf16le'); return be ? b.swap16() : b; };
    const forms = (v: string): string[] => [false, true].flatMap((be) => [utf16(v, be).toString('hex'), utf16(v, be).toString('hex').toUpperCase().match(/../g)!.join('-'), utf16(`note: ${v} end`, be).toString('hex')]);
    for (const echo of [...forms(PASSWORD), ...forms(TOKEN)]) expect(other.line(`echoed ${echo} back`)).toMatch(/^echoed «secret: \d+ chars» back$/);
    const plain = UNLEARNED.flatMap(forms);
    expect(plain.filter((p) => other.line(`echoed ${p} back`) !== `echoed ${p} back`)).toEqual([]);
  });

  it('a learned token wrapped (a line break, CRLF and an indent, a tab, one space; or dashes inside it), in two pieces or more: masked whole; the same pieces of a near miss and other words: shown exactly as sent', () => {
    const other = learnedA('alice', PASSWORD, TOKEN).scope();
    const key = 'Zq8vKw3mXp7Rt2Nd';
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    r.learnFingerprints(exchange('{}', {}, JSON.stringify({ apiKey: key })), { apiKey: key });
    const keyed = r.scope();
    const wraps = (v: string): string[] => [`${v.slice(0, 8)}\n${v.slice(8)}`, `${v.slice(0, 5)}\r\n  ${v.slice(5)}`, `${v.slice(0, 8)}\t${v.slice(8)}`, `${v.slice(0, 8)} ${v.slice(8)}`, v.match(/.{1,4}/g)!.join('-'), v.match(/.{1,4}/g)!.join('\n')];
    for (const w of wraps(key)) {
      expect(keyed.line(`echoed ${w} back`)).toBe('echoed «secret: 16 chars» back');
      expect(keyed.text(JSON.stringify({ echo: w }))).toBe('{"echo":"«secret: 16 chars»"}');
    }
    for (const w of wraps(PASSWORD).slice(0, 4)) expect(other.line(`echoed ${w} back`)).toMatch(/^echoed «secret: \d+ chars» back$/);
    const plain = [...wraps('Zq8vKw3mXp7Rt2Ne'), `${key.slice(0, 8)}  ${key.slice(8)}`, 'the quick brown fox jumps over the lazy dog', 'Zq8vKw3m and Xp7Rt2Nd'];
    expect(plain.filter((p) => keyed.line(`echoed ${p} back`) !== `echoed ${p} back`)).toEqual([]);
  });

  it('a learned name of several words written as one token (dots, underscores, dashes between them): each two of its words masked; other joined words shown exactly as sent', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    const answer = { fullName: 'Anna Maria Nowak' };
    r.learnFingerprints(exchange('{}', {}, JSON.stringify(answer)), answer);
    const other = r.scope();
    for (const joined of ['anna.maria.nowak', 'Anna_Maria_Nowak', 'maria-nowak', 'Anna.Maria']) expect(other.line(`by ${joined} today`), joined).toBe('by «secret: words» today');
    const plain = ['anna.smith', 'maria_lopez', 'www.example.org', 'nowak-anna', 'read-me.first'];
    expect(plain.filter((p) => other.line(`by ${p} today`) !== `by ${p} today`)).toEqual([]);
  });

  it('masks a learned date, phone number or name standing alone, never inside a timestamp, a longer number or another word', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    const answer = { birthDateRaw: '1990-04-12', phoneNumber: '5551234567', city: 'Washington' };
    r.learnFingerprints(exchange('{}', {}, JSON.stringify(answer)), answer);
    const other = r.scope();
    expect(other.line('1990-04-12 5551234567 Washington')).toBe('«secret: 10 chars» «secret: 10 chars» «secret: 10 chars»');
    const around = 'at 1990-04-12T10:00:00Z call 15551234567890 or read washingtonpost';
    expect(other.line(around)).toBe(around);
  });

  it('leaves the same spellings of values nothing learned exactly as sent (0 changed)', () => {
    const other = learnedA('alice', PASSWORD, TOKEN).scope();
    const changed = PLAIN.filter((plain) => other.text(JSON.stringify({ plain })) !== JSON.stringify({ plain }) || other.line(`next ${plain} end`) !== `next ${plain} end`);
    expect(changed).toEqual([]);
  });

  it('base32 of a learned secret in lower-case groups, beside its groups in capitals: each masked, nothing around them', () => {
    const other = learnedA('alice', PASSWORD, TOKEN).scope();
    for (const secret of [PASSWORD, TOKEN]) {
      const lower = groups(base32(secret)).toLowerCase();
      expect(other.line(`echoed ${lower} back`)).toBe('echoed «secret: 32 chars» back');
      expect(other.line(`echoed ${groups(base32(secret, false)).replace(/ /g, '-')} ${lower} back`)).toBe('echoed «secret: 29 chars» «secret: 32 chars» back');
    }
  });

  it('leaves words and keys in groups exactly as sent, and base32 groups of values nothing learned (0 changed)', () => {
    const other = learnedA('alice', PASSWORD, TOKEN).scope();
    const plain = [
      'ABCD EFGH IJKL MNOP', 'AAAA-BBBB-CCCC-DDDD', 'THE BIG RED DOG RAN', 'WXYZ-2345-6723-QRST', 'MFRG GZDF MZTW Q2LK',
      'with some more text here and then some more text here', 'mfrg gzdf mztw q2lk',
      ...UNLEARNED.flatMap((v) => [groups(base32(v)), groups(base32(v)).toLowerCase(), groups(base32(v, false)).replace(/ /g, '-')]),
    ];
    const changed = plain.filter((p) => other.line(`key ${p} end`) !== `key ${p} end` || other.text(JSON.stringify({ p })) !== JSON.stringify({ p }));
    expect(changed).toEqual([]);
  });
});

describe('FingerprintSet.within', () => {
  it('finds exactly the runs of a text, of the least length or more and not the whole, that has() finds', () => {
    const set = new FingerprintSet(1000);
    const learned = ['pw0rd-hunter2', 'abcdefgh', 'zz9-yy8-xx7', 'hunter2-qx7v'];
    for (const v of learned) set.add(v);
    for (let i = 0; i < 600; i++) set.add(`filler-${i}-value`);
    for (const text of ['xxpw0rd-hunter2-qx7vyy', 'abcdefghabcdefgh', 'zz9-yy8-xx7', 'nothing-here-at-all', 'qabcdefgq', 'filler-12-valuex']) {
      const found: Array<[number, number]> = [];
      set.within(text, 8, found);
      const expected: Array<[number, number]> = [];
      for (let i = 0; i < text.length; i++) for (let j = i + 8; j <= text.length; j++) if (j - i < text.length && set.has(text.slice(i, j))) expected.push([i, j]);
      expect(found, text).toEqual(expected);
    }
  });
});

describe('--har: exchange A carries a password and a bearer token, exchange B answers with them in those encodings', () => {
  it('no report file nor console line shows them; the same encodings of values nothing learned are shown as sent', async () => {
    const echoed = [...Object.values(spellings(PASSWORD)), ...Object.values(spellings(TOKEN)), `xyz${PASSWORD}abc`, `xyz${TOKEN}abc`];
    const { code, stderr, shown, changed } = await echoHarShown('fingerprint-encodings-', PASSWORD, TOKEN, echoed, PLAIN);
    expect(code, stderr).toBe(1);
    expect(shown).toEqual([]);
    expect(changed).toEqual([]);
  }, 60_000);
});
