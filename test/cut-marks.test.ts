// A value shown cut before the redactor sees it (a message quoting "<first characters>…", a body kept
// in part) never shows the first characters of a secret: its start before a cut mark (… or ...) is
// masked wherever it stands, a configured or scope-learned secret by its spellings, a token learned
// in another exchange by the exchange of any scope that holds it (the scope's own, or another
// exchange's scope, whichever scope or the run-wide redactor shows it), where it stands whole; the first word of a value
// of several words cut after it is masked or left out. Values nothing learned, of the same shapes,
// are shown exactly, before a cut mark too.
import { describe, expect, it } from 'vitest';
import { MAX_SHOWN_TEXT, Redactor } from '../lib/reporting/redact.js';
import { exchange, learnedA } from './helpers/echo-exchanges.js';

const PASSWORD = 'Pw0rd-Hunter2-Qx7v';
const TOKEN = 'Tk.Zf9Qz@Lm2XyW7kR';
/** A long token, as an access token or a session id is. */
const LONG = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSIsImV4cCI6MTcwMDAwMDAwMH0.Qx7vLm2XyW7kR';
const ADDRESS = 'Flat 9 Baker Street';
/** A password of words too short and common to mask alone. */
const PHRASE = 'Blue Horse Lamp';

/** A run's redactor that learned exchange A (alice's password, a bearer token, a long session
 *  token, an address and a pass phrase): fingerprints only. */
function learned(): Redactor {
  const r = learnedA('alice', PASSWORD, TOKEN);
  const answer = { sessionToken: LONG, address: ADDRESS, passPhrase: PHRASE };
  r.learnFingerprints(exchange('{}', {}, JSON.stringify(answer)), answer);
  return r;
}

/** A scope of exchange B, whose answer echoes `note` under a member named as nothing sensitive. */
function echoing(r: Redactor, note: string): Redactor {
  const scope = r.scope();
  scope.learnExchange(exchange('{}', {}, JSON.stringify({ userName: 'carol', note })));
  return scope;
}

const quoted = (value: string, mark = '…'): string => `expected a GUID, got "${value}${mark}" at $.siteId`;

describe('the start of a secret before a cut mark', () => {
  it('a password and a token the scope learned by name, quoted cut at 12 characters (… or ...): masked, the mark and the message kept', () => {
    const scope = learned().scope();
    scope.learnExchange(exchange(JSON.stringify({ userName: 'bob', password: PASSWORD }), { authorization: `Bearer ${TOKEN}` }, '{}'));
    for (const secret of [PASSWORD, TOKEN]) {
      expect(scope.line(quoted(secret.slice(0, 12)))).toBe(quoted('«secret: 12 chars»'));
      expect(scope.line(quoted(secret.slice(0, 12), '...'))).toBe(quoted('«secret: 12 chars»', '...'));
    }
    expect(scope.text(JSON.stringify({ detail: `${PASSWORD.slice(0, 10)}…` }))).toBe('{"detail":"«secret: 10 chars»…"}');
  });

  it('a configured secret quoted cut, in any scope: masked', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [`Bearer ${LONG}`] });
    expect(r.scope().line(quoted(LONG.slice(0, 40)))).toBe(quoted('«secret: 40 chars»'));
  });

  // The other marks a writer puts where it hides a value's rest (an independent review found 34 of a
  // 40-character token shown before each), and the last characters of a configured or scope-learned
  // secret after a mark (******Lm2X…, a value shown as head…tail).
  it('a configured and a scope-learned secret before two dots, [...], asterisks or (truncated), and after a mark: masked, the marks kept', () => {
    const configured = new Redactor({ showPersonalData: false, secrets: [`Bearer ${LONG}`] }).scope();
    const scope = learned().scope();
    scope.learnExchange(exchange(JSON.stringify({ userName: 'bob', password: PASSWORD }), {}, '{}'));
    for (const [r, secret, k] of [[configured, LONG, 40], [scope, PASSWORD, 12]] as const) {
      for (const mark of ['..', '[...]', '******', ' (truncated)', '[truncated]']) expect(r.line(quoted(secret.slice(0, k), mark)), mark).toBe(quoted(`«secret: ${k} chars»`, mark));
      const tail = secret.slice(secret.length - k);
      expect(r.line(`expected a GUID, got "******${tail}" at $.siteId`)).toBe(`expected a GUID, got "******«secret: ${k} chars»" at $.siteId`);
      expect(r.line(`expected a GUID, got "${secret.slice(0, 6)}…${tail}" at $.siteId`)).toBe(`expected a GUID, got "«secret: 6 chars»…«secret: ${k} chars»" at $.siteId`);
    }
  });

  // A secret's last four characters are everyday data: a year, a card's tail (an independent review
  // found 2024 masked after ****, .. and ... beside a learned Summer2024).
  it('the last characters of a secret after a mark: fewer than eight shown as sent', () => {
    const scope = learned().scope();
    scope.learnExchange(exchange(JSON.stringify({ userName: 'bob', password: 'Summer2024' }), {}, '{}'));
    const plain = ['{"card":"************2024","years":"2019..2024","range":"2020...2024"}', 'expected "2019..2024" to match ^\\d{4}$', 'Annual report (truncated)2024'];
    expect(plain.map((p) => scope.line(p))).toEqual(plain);
  });

  it('tokens learned in another exchange, echoed by this one, quoted cut (alone, joined to a word, at any length from 4): masked', () => {
    const scope = echoing(learned(), `echo ${PASSWORD} from user_${TOKEN} with ${LONG}`);
    expect(scope.line(quoted(LONG.slice(0, 40)))).toBe(quoted('«secret: 40 chars»'));
    expect(scope.line(quoted(`user_${TOKEN.slice(0, 9)}`))).toBe(quoted('user_«secret: 9 chars»'));
    for (let k = 4; k < PASSWORD.length; k++) expect(scope.line(quoted(PASSWORD.slice(0, k))), `${k} characters`).toBe(quoted(`«secret: ${k} chars»`));
  });

  it('a value of several words cut after its first word or words, before a mark: no four characters of a word of it shown', () => {
    const scope = echoing(learned(), `at ${ADDRESS}, pass ${PHRASE}`);
    for (const cut of ['Flat', 'Flat ', 'Flat 9 ', 'Flat 9 Baker', 'Flat 9 Baker Stre', 'Blue', 'Blue ', 'Blue Horse La']) {
      const shown = scope.line(quoted(cut));
      expect(shown, cut).not.toMatch(/Flat|Baker|Stre|Blue|Horse/);
      expect(shown, cut).toMatch(/^expected a GUID, got "«secret: .*…" at \$\.siteId$/);
    }
  });

  it('a body kept in part, cut after the first word of a learned value: that word is left out', () => {
    const scope = learned().scope();
    for (const value of [ADDRESS, PHRASE]) {
      const first = value.split(' ')[0]!;
      expect(scope.cut(`{"note":"the value is ${first} `, MAX_SHOWN_TEXT, true).text).toBe('{"note":"the value is ');
    }
  });

  it('the words a secret header\'s value starts with (a scheme, a cookie\'s name), before a cut mark: shown exactly', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [`Bearer ${LONG}`, `session=${PASSWORD}; theme=dark`] });
    const scope = r.scope();
    for (const line of ['sent Authorization: Bearer… and got 401', 'the header was "Bearer ..."', 'Cookie: session…', 'Cookie: session=…']) expect(scope.line(line)).toBe(line);
    expect(scope.line(`Cookie: session=${PASSWORD.slice(0, 9)}…`)).toBe('Cookie: session=«secret: 9 chars»…');
  });

  it('tokens another exchange\'s scope learned, quoted cut mid-text in another exchange\'s scope, a scope of none and the run-wide redactor: masked', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    r.scope().learnExchange(exchange(JSON.stringify({ userName: 'bob', password: PASSWORD }), { authorization: `Bearer ${TOKEN}` }, JSON.stringify({ sessionToken: LONG })));
    const other = echoing(r, 'nothing of bob\'s here');
    const cuts: Array<readonly [string, number]> = [[PASSWORD, 12], [TOKEN, 9], [LONG, 40]];
    const shown: string[] = [];
    for (const redactor of [other, r.scope(), r]) for (const [secret, k] of cuts) for (const mark of ['…', '...']) {
      const line = redactor.line(`${quoted(secret.slice(0, k), mark)}, then more`);
      if (line !== `${quoted(`«secret: ${k} chars»`, mark)}, then more`) shown.push(line);
    }
    expect(shown).toEqual([]);
  });

  // Known gap. The run keeps of a learned token only a 32-bit tag of a hash of the whole token
  // (fingerprints.ts), in a set bounded by design; the hash of a token's start cannot be told from it.
  // Without an alive scope's exchange holding the token, "is this cut word the start of a learned
  // token" has no answer: a sound one needs the tokens (values kept without bound) or a fingerprint
  // per start of each token from MIN_SCANNED characters on (a token of n characters n - 3 of them: the
  // bound reached n - 3 times sooner, and starts of four to seven characters of learned values, such
  // as "pass" or "2026", masked before every cut mark: non-secret words masked).
  it.fails('a token learned by fingerprint only (held by no alive scope\'s exchange), quoted cut in the run-wide redactor and a scope of none: masked (known gap: a fingerprint of a whole token cannot tell its start)', () => {
    const r = learned();
    const shown: string[] = [];
    for (const redactor of [r, r.scope()]) for (const [secret, k] of [[PASSWORD, 12], [TOKEN, 9], [LONG, 40]] as const) for (const mark of ['…', '...']) {
      const line = redactor.line(quoted(secret.slice(0, k), mark));
      if (line !== quoted(`«secret: ${k} chars»`, mark)) shown.push(line);
    }
    expect(shown).toEqual([]);
  });

  it('values nothing learned, of the same shapes, before a cut mark: shown exactly (0 changed)', () => {
    const r = learned();
    r.learnFingerprints(exchange('{}', {}, '{}'), {});
    const notes = ['Pw0rd-Hunter3-Qx7v', 'Tk.Zf9Qz@Lm2XyW7kQ', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IifQ.Zz9', 'Flat 8 Baker Row', 'Flatland Court', 'Blue Sky', '3fa85f64-5717-4562-b3fc-2c963f66afa6', 'Loading'];
    const scope = echoing(r, notes.join(' and '));
    // Another exchange's scope, holding learned tokens of the same shapes (none of which a value here
    // begins: a cut start of a learned token is masked, whatever follows it), changes nothing either.
    const session = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjYXJvbCJ9.Rs9vLm2XyW7kR';
    r.scope().learnExchange(exchange(JSON.stringify({ userName: 'bob', password: 'Hunter2-Pw0rd-Qx7v' }), { authorization: 'Bearer Zf9Qz@Tk.Lm2XyW7kR' }, JSON.stringify({ sessionToken: session })));
    const lines = [
      ...notes.flatMap((n) => [quoted(n.slice(0, 12)), quoted(n.slice(0, 12), '...'), quoted(n)]),
      'the answer was cut... then resumed…', 'Loading... please wait', 'see RFC 8259 … for more',
      ...notes.flatMap((n) => [quoted(n.slice(0, 12), '******'), quoted(n.slice(0, 12), ' (truncated)'), `got "******${n.slice(-12)}"`, `got "${n.slice(0, 3)}…${n.slice(-12)}"`]),
      'a..b ranges 1..10 and ../up', 'rated *** of *****', 'the log [...] was [truncated]',
    ];
    const changed = lines.filter((line) => scope.line(line) !== line || r.line(line) !== line || r.scope().line(line) !== line);
    expect(changed).toEqual([]);
  });
});
