// A secret learned in one exchange and echoed base64-encoded in another (a response body, a header,
// a URL, a check's message): found by decoding the base64 tokens of the shown text and looking up the
// tokens of what they decode to among the learned fingerprints, as hex and reversed tokens are. The
// secret at an offset of the decoded text (Basic user:password, a JSON document) is found too; a
// base64 value that decodes to nothing learned is shown exactly as sent.
import { describe, expect, it } from 'vitest';
import { Redactor } from '../lib/reporting/redact.js';
import { echoHarRun, exchange, learnedA } from './helpers/echo-exchanges.js';

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

/** Two base64 runs side by side, `first` before `second`, each as `spell` writes it, `sep` between. */
const sideBySide = (first: string | Buffer, second: string | Buffer, spell: (v: string | Buffer) => string, sep: string): string => `${spell(first)}${sep}${spell(second)}`;
const SPELLS: Record<string, (v: string | Buffer) => string> = {
  base64: (v) => Buffer.from(v).toString('base64'),
  base64url: (v) => Buffer.from(v).toString('base64url'),
  'base64 in groups of four': (v) => Buffer.from(v).toString('base64').match(/.{1,4}/g)!.join(' '),
};
/** Runs of nothing learned put beside the secret's: bytes that are no text (a hash), and text (padded in base64). */
const NEIGHBOURS: ReadonlyArray<string | Buffer> = [Buffer.from('2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881', 'hex').subarray(0, 24), 'a plain value, nothing secret here'];
const SEPARATORS = [' ', '-', '_'];

describe('a secret\'s base64 run beside another base64 run', () => {
  it('before or after it, a space, a dash or an underscore between, in base64, base64url or groups of four: the secret\'s run masked, the other shown as sent (groups of text after the secret\'s, one text to a reader, masked with it)', () => {
    const other = learned().scope();
    const shown: string[] = [];
    for (const secret of [PASSWORD, BEARER]) for (const neighbour of NEIGHBOURS) for (const [how, spell] of Object.entries(SPELLS)) for (const sep of SEPARATORS) {
      for (const [text, oneText] of [[sideBySide(neighbour, secret, spell, sep), false], [sideBySide(secret, neighbour, spell, sep), how.includes('groups') && sep === ' ' && typeof neighbour === 'string' && secret.length % 3 === 0]] as const) {
        const out = other.line(`echoed ${text} back`);
        // Groups of the secret's 18 bytes (no padding), a space, and a text's: one text to a reader, masked as one.
        const expected = oneText ? `echoed «secret: ${text.replace(/ /g, '').length} chars» back` : undefined;
        if (expected !== undefined ? out !== expected : out.includes(spell(secret).slice(0, 8)) || !out.includes(spell(neighbour)) || !/«secret: \d+ chars»/.test(out)) shown.push(`${how} ${JSON.stringify(sep)}: ${out}`);
      }
    }
    expect(shown).toEqual([]);
  });

  it('two runs of nothing learned side by side, in the same spellings: shown exactly as sent (0 changed)', () => {
    const other = learned().scope();
    const changed: string[] = [];
    for (const neighbour of NEIGHBOURS) for (const spell of Object.values(SPELLS)) for (const sep of SEPARATORS) {
      for (const text of [sideBySide(neighbour, 'Pw0rd-Hunter3-Qx7v', spell, sep), sideBySide('nothing-secret-here', neighbour, spell, sep)]) {
        if (other.line(`echoed ${text} back`) !== `echoed ${text} back`) changed.push(text);
      }
    }
    expect(changed).toEqual([]);
  });
});

/** Redactors that know PASSWORD and BEARER: by fingerprint (another exchange's), by this scope's
 *  exchange, and as configured secrets. */
const KNOWING: Record<string, () => Redactor> = {
  'learned in another exchange': () => learned().scope(),
  'learned by this scope': () => {
    const scope = new Redactor({ showPersonalData: false, secrets: [] }).scope();
    scope.learnExchange(exchange(JSON.stringify({ userName: USER, password: PASSWORD }), { authorization: `Bearer ${BEARER}` }, '{}'));
    return scope;
  },
  configured: () => new Redactor({ showPersonalData: false, secrets: [PASSWORD, BEARER] }),
};
/** A hash's bytes, cut into the runs put on either side of the secret's (none of their groups next to
 *  the secret's reads as text: such a group is read as the secret's own, see the redactor). */
const HASH = Buffer.from('2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881', 'hex');
const AROUND: ReadonlyArray<readonly [Buffer, Buffer]> = [[HASH.subarray(0, 24), HASH.subarray(8, 32)], [HASH.subarray(0, 12), HASH.subarray(12, 30)], [HASH.subarray(6, 9), HASH.subarray(0, 6)]];

describe('a secret\'s base64 run between two other runs', () => {
  it('a hash\'s runs on either side, a space, a dash or an underscore between, in base64, base64url or groups of four (and groups around the secret\'s run whole): the secret\'s run masked, both hash runs shown as sent', () => {
    const shown: string[] = [];
    for (const [who, make] of Object.entries(KNOWING)) {
      const redactor = make();
      for (const secret of [PASSWORD, BEARER]) for (const [how, spell] of Object.entries({ ...SPELLS, 'groups around the run': SPELLS['base64 in groups of four']! })) for (const sep of SEPARATORS) for (const [before, after] of AROUND) {
        const run = how === 'groups around the run' ? b64(secret) : spell(secret);
        const text = `${spell(before)}${sep}${run}${sep}${spell(after)}`;
        const out = redactor.line(`echoed ${text} back`);
        const masked = out.slice(`echoed ${spell(before)}${sep}`.length, out.length - `${sep}${spell(after)} back`.length);
        if (!out.startsWith(`echoed ${spell(before)}${sep}«`) || !out.endsWith(`»${sep}${spell(after)} back`) || !/^«[^«»]+»$/.test(masked)) shown.push(`${who}, ${how} ${JSON.stringify(sep)}: ${text} -> ${out}`);
      }
    }
    expect(shown).toEqual([]);
  });

  it('three runs of nothing learned side by side, in the same spellings: shown exactly as sent (0 changed)', () => {
    const changed: string[] = [];
    for (const make of Object.values(KNOWING)) {
      const redactor = make();
      for (const spell of Object.values(SPELLS)) for (const sep of SEPARATORS) for (const [before, after] of AROUND) {
        for (const middle of ['Pw0rd-Hunter3-Qx7v', 'nothing-secret-here', 'a plain value, nothing secret here']) {
          const text = `echoed ${spell(before)}${sep}${spell(middle)}${sep}${spell(after)} back`;
          if (redactor.line(text) !== text) changed.push(text);
        }
      }
    }
    expect(changed).toEqual([]);
  });
});

/** A value's base64 less its last character's low bits: the spelling of a value of 3k + 1 bytes one
 *  character past whole groups of four (what base64Spellings searches a configured secret for). */
const stem = (v: string): string => b64(v).slice(0, Math.floor((Buffer.byteLength(v) * 4) / 3));

describe('base64 of a secret of 3k + 1 bytes, one character past whole groups (an unpadded tail)', () => {
  const SECRET = 'Pw0rd-Hunter2-Qx7vZ';
  it('learned in another exchange, by this scope or configured: masked whole, alone, in a URL, in a JSON document, between a hash\'s runs (the hash shown as sent) and in groups of four, as base64 or base64url', () => {
    expect(Buffer.byteLength(SECRET) % 3).toBe(1);
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    r.learnFingerprints(exchange(JSON.stringify({ userName: USER, password: SECRET }), {}, '{}'), {});
    const scope = new Redactor({ showPersonalData: false, secrets: [] }).scope();
    scope.learnExchange(exchange(JSON.stringify({ userName: USER, password: SECRET }), {}, '{}'));
    const shown: string[] = [];
    for (const [who, redactor] of [['learned in another exchange', r.scope()], ['learned by this scope', scope], ['configured', new Redactor({ showPersonalData: false, secrets: [SECRET] })]] as const) {
      // The spelling, and where the secret's starts in it ("alice:" is 8 characters of base64).
      for (const [spelled, from] of [[stem(SECRET), 0], [stem(SECRET).replace(/\+/g, '-').replace(/\//g, '_'), 0], [stem(`alice:${SECRET}`), 8]] as const) {
        expect(spelled.length % 4).toBe(1);
        const [before, after] = [HASH.subarray(0, 24).toString('base64url'), HASH.subarray(8, 32).toString('base64url')];
        for (const text of [`echoed ${spelled} back`, `http://example.test/echo/${spelled}`, JSON.stringify({ echo: spelled }), `id ${before}-${spelled}_${after}`, `echoed ${spelled.match(/.{1,4}/g)!.join(' ')} back`]) {
          const out = redactor.text(text);
          if (out.includes(spelled.slice(from, from + 8)) || !out.includes('«') || (text.startsWith('id') && !(out.startsWith(`id ${before}-`) && out.endsWith(`_${after}`)))) shown.push(`${who}: ${out}`);
        }
      }
    }
    expect(shown).toEqual([]);
  });

  it('runs of one character past whole groups that hold nothing learned (also in groups), and words of that length: shown exactly as sent (0 changed); a word of one letter after a secret\'s groups shown as sent', () => {
    const other = learned().scope();
    const runs = [stem('Pw0rd-Hunter3-Qx7vZ'), stem('nothing secret here'), stem('carol:nothing-secre'), 'Authorization', 'abcdefghijklmnopq', HASH.toString('base64').slice(0, 41)];
    expect(runs.filter((t) => t.length % 4 !== 1)).toEqual([]);
    const texts = runs.flatMap((t) => [`echoed ${t} back`, JSON.stringify({ echo: t }), `echoed ${t.match(/.{1,4}/g)!.join(' ')} back`]);
    expect(texts.filter((t) => other.text(t) !== t)).toEqual([]);
    // A word of one letter after a secret's groups is no group of them.
    for (const secret of [PASSWORD, BEARER]) for (const word of ['a', 'I']) {
      const groups = b64(secret).match(/.{1,4}/g)!.join(' ');
      expect(other.line(`echoed ${groups} ${word} back`)).toBe(`echoed «secret: ${b64(secret).length} chars» ${word} back`);
    }
  });
});

/** Redactors that know `secrets`, as a response's secret field gives them: by fingerprint (another
 *  exchange's), by this scope's exchange, and as configured secrets. */
const knowing = (secrets: readonly string[]): Record<string, () => Redactor> => {
  const answers = secrets.map((secret) => exchange('{}', {}, JSON.stringify({ secret })));
  return {
    'learned in another exchange': () => {
      const r = new Redactor({ showPersonalData: false, secrets: [] });
      for (const ex of answers) r.learnFingerprints(ex, JSON.parse(ex.response!.body.toString('utf8')));
      return r.scope();
    },
    'learned by this scope': () => {
      const scope = new Redactor({ showPersonalData: false, secrets: [] }).scope();
      for (const ex of answers) scope.learnExchange(ex);
      return scope;
    },
    configured: () => new Redactor({ showPersonalData: false, secrets }),
  };
};
/** Base64 in groups of four, a space between. */
const grouped = (v: Buffer): string => v.toString('base64').match(/.{1,4}/g)!.join(' ');

describe('a letters-only secret\'s base64 among a hash\'s, a hash group beside it decoding to a letter (read fused to the secret)', () => {
  // Of 3k + 2, 3k and 3k + 1 bytes: only the second ends on a whole group, with groups after it.
  const LETTERS = ['dZjHLTXVtFq', 'QmTrvXkLpWzH', 'hFqWnRtZvBkJm'];
  // Nothing learned: no start of a secret's either (a secret's base64 less its last bits is its stable spelling).
  const UNLEARNED = ['kWbNRtXLpQz', 'TmHqLxZvRkPw', 'yRvBnQmKtLzXw'];
  // Before: 18 bytes whose last group decodes to "o", a byte that is no text, and "E"; or ending in a
  // group all of text ("xQz"). After: a group of "k" and two bytes that are no text; or of text first.
  const BEFORE = [Buffer.from('GjAITEnMjpFpQoymFsHbb8JF', 'base64'), Buffer.concat([HASH.subarray(0, 12), Buffer.from('xQz')])];
  const AFTER = [Buffer.concat([Buffer.from([0x6b, 0xff, 0x10]), HASH.subarray(0, 9)]), Buffer.concat([Buffer.from('kWp'), HASH.subarray(3, 12)])];
  /** [before, after] around a value: a hash before it, and for one of whole groups after it too, or after it alone. */
  const around = (value: string): Array<readonly [Buffer, Buffer]> => {
    const none = Buffer.alloc(0);
    const out: Array<readonly [Buffer, Buffer]> = BEFORE.map((b) => [b, none] as const);
    if (Buffer.byteLength(value) % 3 === 0) for (const a of AFTER) out.push([none, a], [BEFORE[0]!, a], [BEFORE[1]!, a]);
    return out;
  };

  it('learned from a response\'s secret field, by this scope or configured: in groups of four, the secret\'s groups masked and the hash\'s shown as sent; in one run, not shown', () => {
    const shown: string[] = [];
    let cases = 0;
    for (const [who, make] of Object.entries(knowing(LETTERS))) {
      const redactor = make();
      for (const secret of LETTERS) for (const [before, after] of around(secret)) {
        cases += 2;
        const [head, tail] = [before.length ? `${grouped(before)} ` : '', after.length ? ` ${grouped(after)}` : ''];
        const groups = `echoed ${head}${grouped(Buffer.from(secret))}${tail} back`;
        const out = redactor.line(groups);
        const masked = out.slice(`echoed ${head}`.length, out.length - `${tail} back`.length);
        if (!out.startsWith(`echoed ${head}«`) || !out.endsWith(`»${tail} back`) || !/^«[^«»]+»$/.test(masked)) shown.push(`${who}: ${groups} -> ${out}`);
        const run = Buffer.concat([before, Buffer.from(secret), after]).toString('base64');
        const runOut = redactor.line(`echoed ${run} back`);
        if (runOut.includes(b64(secret).slice(0, 8)) || !runOut.includes('«')) shown.push(`${who}: ${run} -> ${runOut}`);
      }
    }
    expect({ shown, cases }).toEqual({ shown: [], cases: 72 });
  });

  it('letters-only values of nothing learned among the same hashes, in groups and in one run: shown exactly as sent (0 changed)', () => {
    const changed: string[] = [];
    let cases = 0;
    for (const make of Object.values(knowing(LETTERS))) {
      const redactor = make();
      for (const value of UNLEARNED) for (const [before, after] of around(value)) {
        for (const text of [`echoed ${[before, Buffer.from(value), after].filter((b) => b.length).map(grouped).join(' ')} back`, `echoed ${Buffer.concat([before, Buffer.from(value), after]).toString('base64')} back`]) {
          cases++;
          if (redactor.line(text) !== text) changed.push(text);
        }
      }
    }
    expect({ changed, cases }).toEqual({ changed: [], cases: 72 });
  });
});

describe('a secret whose own base64url has a dash or an underscore (its bytes 62 and 63)', () => {
  const SECRETS = ['Sess1on~Tok?Ab>>Cd0', 'Api7Key~x??>>Zq9', 'Tok3n~Val~?>~Xy~>>Ab', 'Ref9~Note?>>Gh2k', 'Pw0rd~Lab>?Mn~>>Xy'];
  const [HEAD, TAIL] = [HASH.subarray(0, 24).toString('base64url'), HASH.subarray(8, 32).toString('base64url')];
  /** What comes before and after a base64url spelling in each text. */
  const AROUND_SPELLING: ReadonlyArray<readonly [string, string]> = [
    ['echoed ', ' back'], ['http://example.test/echo/', '?v=1'], ['{"echo":"', '"}'], [`id ${HEAD}-`, `_${TAIL}`], [`id ${HEAD}_`, ' end'], ['id ', `-${TAIL}`],
  ];

  it('learned in another exchange, by this scope or configured: the whole spelling masked as one (alone, in a URL, in JSON, dash-joined to a hash\'s runs, shown as sent)', () => {
    expect(SECRETS.filter((s) => !/[-_]/.test(b64url(s)))).toEqual([]);
    const shown: string[] = [];
    let cases = 0;
    for (const [who, make] of Object.entries(knowing(SECRETS))) {
      const redactor = make();
      for (const secret of SECRETS) for (const [before, after] of AROUND_SPELLING) {
        cases++;
        const out = redactor.text(`${before}${b64url(secret)}${after}`);
        const masked = out.slice(before.length, out.length - after.length);
        if (!out.startsWith(`${before}«`) || !out.endsWith(`»${after}`) || !/^«[^«»]+»$/.test(masked)) shown.push(`${who}: ${before}${b64url(secret)}${after} -> ${out}`);
      }
    }
    expect({ shown, cases }).toEqual({ shown: [], cases: 90 });
  });

  it('base64url of values of nothing learned with dashes and underscores, dash-joined to a hash\'s runs: shown exactly as sent (0 changed)', () => {
    const changed: string[] = [];
    let cases = 0;
    for (const make of Object.values(knowing(SECRETS))) {
      const redactor = make();
      for (const value of ['Other~Val?Ab>>Cd0', 'Other7Val~Ab?>>Zz', 'Zeta5ix~Q?>Ab>>', 'Sess1on-Tok?Ab>>Cd0']) for (const [before, after] of [...AROUND_SPELLING, [`id ${HEAD}-`, ''] as const]) {
        cases++;
        const text = `${before}${b64url(value)}${after}`;
        if (redactor.text(text) !== text) changed.push(text);
      }
    }
    expect({ changed, cases }).toEqual({ changed: [], cases: 84 });
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
