// A text the report shows cut (a body kept in part, a body past its cap) never ends in the first
// characters of a secret written in an encoding: a cut at any character of a learned or configured
// secret's hex dump, escapes, full-width forms, base32 (in groups too, in capitals or small letters), base64 (in groups of four, of UTF-16LE bytes)
// or character references shows no piece of four characters or more of it, as read. A cut text of
// anything else loses only its last word, as before. A text cut before the harness saw it, a cut
// mark (… or ...) after the cut, is read the same way by line(): an encoded secret's start before
// the mark is masked; encodings of values nothing learned are shown exactly.
import { describe, expect, it } from 'vitest';
import { recordedResponse } from '../lib/http/exchange.js';
import { responseText } from '../lib/reporting/exchange-text.js';
import { MAX_SHOWN_TEXT, Redactor } from '../lib/reporting/redact.js';
import { exchange, learnedA } from './helpers/echo-exchanges.js';
import { canonicalSpellings, decoders, lineSpellings, spellings } from './helpers/encoded-spellings.js';

const PASSWORD = 'Pw0rd-Hunter2-Qx7v';
const TOKEN = 'Tk.Zf9Qz@Lm2XyW7kR';
const BEFORE = 'the answer echoed ';

/** Whether `decoded` holds four characters or more of `secret` in a row. */
const readable = (decoded: string, secret: string): boolean => {
  for (let i = 0; i + 4 <= secret.length; i++) if (decoded.includes(secret.slice(i, i + 4))) return true;
  return false;
};

/** Per spelling of `secret`, the cuts (characters of the spelling kept) after which the shown text
 *  holds a readable piece of it: the text is the start of a longer one (`head`), as a body the engine
 *  kept in part. */
function leaks(redactor: () => Redactor, secret: string): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [how, echo] of Object.entries({ ...spellings(secret), ...canonicalSpellings(secret), ...lineSpellings(secret) })) {
    const decode = decoders[how]!;
    for (let k = 1; k <= echo.length; k++) {
      const shown = redactor().cut(`${BEFORE}${echo.slice(0, k)}`, MAX_SHOWN_TEXT, true).text;
      if (readable(decode(shown.slice(BEFORE.length)), secret)) (out[how] ??= []).push(k);
    }
  }
  return out;
}

/** leaks for a text cut before the harness saw it: `mark` after the cut and words after it, shown by line(). */
function markLeaks(redactor: (echo: string) => Redactor, secret: string, mark: string): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [how, echo] of Object.entries({ ...spellings(secret), ...canonicalSpellings(secret), ...lineSpellings(secret) })) {
    const decode = decoders[how]!;
    const r = redactor(echo);
    for (let k = 1; k <= echo.length; k++) {
      const shown = r.line(`${BEFORE}${echo.slice(0, k)}${mark} and the rest`);
      if (readable(decode(shown.slice(BEFORE.length, shown.lastIndexOf(mark))), secret)) (out[how] ??= []).push(k);
    }
  }
  return out;
}

/** A scope whose exchange's answer echoes `echo` whole. */
const echoing = (r: Redactor) => (echo: string): Redactor => {
  const scope = r.scope();
  scope.learnExchange(exchange('{}', {}, JSON.stringify({ userName: 'carol', note: `echo ${echo} end` })));
  return scope;
};

describe('an encoded secret cut before a cut mark (line())', () => {
  it('configured, in a scope and run-wide, … or ...: no cut through any spelling shows four of its characters', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [`Bearer ${TOKEN}`] });
    for (const mark of ['…', '...']) {
      expect(markLeaks(() => r.scope(), TOKEN, mark)).toEqual({});
      expect(markLeaks(() => r, TOKEN, mark)).toEqual({});
    }
  });

  it('learned by name by the scope that shows it: no cut through any spelling shows four of its characters', () => {
    const scope = (): Redactor => {
      const s = new Redactor({ showPersonalData: false, secrets: [] }).scope();
      s.learnExchange(exchange(JSON.stringify({ userName: 'bob', password: PASSWORD }), { authorization: `Bearer ${TOKEN}` }, '{}'));
      return s;
    };
    expect(markLeaks(scope, PASSWORD, '…')).toEqual({});
    expect(markLeaks(scope, TOKEN, '…')).toEqual({});
  });

  it('learned in another exchange, whose scope is alive, or held only as fingerprints while the showing scope\'s exchange echoes the whole encoding: no cut shows four of its characters', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    const holder = r.scope();
    holder.learnExchange(exchange(JSON.stringify({ userName: 'bob', password: PASSWORD }), { authorization: `Bearer ${TOKEN}` }, '{}'));
    expect(markLeaks(() => r.scope(), PASSWORD, '…')).toEqual({});
    expect(markLeaks(() => r.scope(), TOKEN, '...')).toEqual({});
    const fingerprinted = learnedA('alice', PASSWORD, TOKEN);
    expect(markLeaks(echoing(fingerprinted), PASSWORD, '…')).toEqual({});
    expect(markLeaks(echoing(fingerprinted), TOKEN, '…')).toEqual({});
  });

  it('encodings of values nothing learned, cut at every character before a mark, the scope\'s exchange echoing them whole: shown exactly (0 changed)', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [`Bearer ${TOKEN}`] });
    r.scope().learnExchange(exchange(JSON.stringify({ userName: 'bob', password: PASSWORD }), {}, '{}'));
    const changed: string[] = [];
    for (const value of ['Kite-Runner9-Zm4q', 'the quick brown fox jumps', 'sample-userName']) {
      for (const echo of Object.values({ ...spellings(value), ...canonicalSpellings(value), ...lineSpellings(value) })) {
        const scope = echoing(r)(echo);
        for (let k = 1; k <= echo.length; k++) for (const mark of ['…', '...']) {
          const line = `${BEFORE}${echo.slice(0, k)}${mark} and the rest`;
          if (scope.line(line) !== line) changed.push(line);
        }
      }
    }
    expect(changed).toEqual([]);
  });
});

describe('a cut through an encoded secret', () => {
  it('a password and a token learned in another exchange: no cut through any spelling shows four of their characters', () => {
    const r = learnedA('alice', PASSWORD, TOKEN);
    expect(leaks(() => r.scope(), PASSWORD)).toEqual({});
    expect(leaks(() => r.scope(), TOKEN)).toEqual({});
  });

  it('a configured secret: no cut through any spelling shows four of its characters', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [`Bearer ${TOKEN}`] });
    expect(leaks(() => r.scope(), TOKEN)).toEqual({});
  });

  it('a body the engine kept in part, ending in a learned token\'s hex dump: the dump is left out', () => {
    const r = learnedA('alice', PASSWORD, TOKEN);
    const dump = spellings(PASSWORD)['hex bytes with spaces']!;
    const body = Buffer.from(`{"log":"${'x'.repeat(100)} ${dump} rest"}`);
    const kept = exchange('{}', {}, '');
    const cutAt = body.indexOf(dump) + 30; // the first ten bytes of the secret
    const shown = responseText({ ...kept, response: { ...recordedResponse(200, { 'content-type': 'application/json' }, body), body: body.subarray(0, cutAt) } }, r.scope());
    expect(shown).toContain(`{"log":"${'x'.repeat(100)} \n… (${body.length} bytes received; the rest not shown)`);
    expect(shown).not.toContain('50 77');
  });

  it('a cut text of words (four-letter words in small letters too), numbers, JSON and hex-like numbers loses only its last word (cut after a space, the word before it), at every cut', () => {
    const r = learnedA('alice', PASSWORD, TOKEN).scope();
    const text = '{"note":"the quick brown fox, 10 20 30 40 50 60; de:ad:be:ef jumps (over) the lazy dog & co. 2026-11-27 QUICK BROWN FOXES, what the installed package says: with some more text here"}';
    for (let k = 1; k <= text.length; k++) {
      let end = k;
      while (end > 0 && /\s/.test(text[end - 1]!)) end--;
      const word = end;
      while (end > 0 && !/[\s"'<>,;()[\]{}»]/.test(text[end - 1]!)) end--;
      if (end === word && word < k) end = k;
      expect(r.cut(text.slice(0, k), MAX_SHOWN_TEXT, true).text, `cut at ${k}`).toBe(text.slice(0, end));
    }
  });
});
