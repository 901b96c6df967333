// The learner fingerprints an ASCII value by its codes, with no string made (redact.ts learnAscii):
// it must learn exactly what the rules learn from the value's words as strings (each token of at
// least MIN_SCANNED characters, a lone one or a long one; of a header, its credentialWords; every two words in a
// row; never the harness's own words), no fingerprint more and none less.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HARNESS_VALUES, HARNESS_WORDS } from '../lib/checks/harness-words.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { FingerprintSet } from '../lib/reporting/fingerprints.js';
import { credentialWords, MIN_PART, MIN_SCANNED, Redactor, wordsOf } from '../lib/reporting/redact.js';
import { canonicalValue } from '../lib/reporting/spellings.js';

const MAX = 1 << 16;

/** The fingerprints the rules give a value, as strings, in the order they are added. */
function expected(value: string, withParts: boolean, pairs: boolean): string[] {
  const harness = (w: string) => HARNESS_WORDS.has(w) || HARNESS_VALUES.has(w);
  const words = wordsOf(canonicalValue(value));
  const tokens = words.filter((t) => t.length >= MIN_SCANNED);
  const out = tokens.filter((t) => (tokens.length === 1 || withParts || t.length >= MIN_PART) && !harness(t));
  if (pairs) {
    for (let i = 1; i < words.length; i++) {
      const [a, b] = [words[i - 1]!, words[i]!];
      if (a.length + b.length >= MIN_SCANNED && !(harness(a) && harness(b))) out.push(`${a} ${b}`);
    }
  }
  return out;
}

function exchange(headers: Record<string, string>, body: string, request = '{}', generated = false): Exchange {
  return {
    id: 'case-1.login', title: 'login', origin: generated ? { source: 'generated', vouched: false, intent: 'valid' } : { source: 'case', vouched: true, case: 1 },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json', ...headers }, body: request },
    response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from(body)),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
}

const setOf = (r: Redactor): FingerprintSet => (r as unknown as { shared: { fingerprints: FingerprintSet } }).shared.fingerprints;

/** The redactor's set holds every expected fingerprint and nothing else (its count is theirs). */
function expectLearned(r: Redactor, values: readonly string[], withParts: boolean, pairs: boolean): void {
  const want = new FingerprintSet(MAX);
  for (const v of values) for (const f of expected(v, withParts, pairs)) want.add(f);
  const got = setOf(r);
  expect(got.size).toBe(want.size);
  for (const v of values) for (const f of expected(v, withParts, pairs)) expect(got.has(f), `${JSON.stringify(v)}: ${JSON.stringify(f)}`).toBe(true);
}

/** Learns each value as a body's credential member: its tokens and pairs. */
function learnAsMember(values: readonly string[]): Redactor {
  const r = new Redactor({ showPersonalData: false, secrets: [], maxLearned: MAX });
  for (const v of values) r.learnFingerprints(exchange({}, '{}'), { password: v });
  return r;
}

/** Learns each value as a secret header's: its credentialWords (the whole credential, or its long parts), no pairs. */
function learnAsHeader(values: readonly string[]): Redactor {
  const r = new Redactor({ showPersonalData: false, secrets: [], maxLearned: MAX });
  for (const v of values) r.learnFingerprints(exchange({ authorization: v }, '{}'), {});
  return r;
}

const HARNESS = [...HARNESS_WORDS].slice(0, 40).concat([...HARNESS_VALUES]);
/** Text dense in what decides a token's edges and case, with the harness's words (in any case), some
 *  characters beyond ASCII (which take the string path), now and then a long run. */
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...'aZq09_@+~.-: \t"<>/=,;\\%&#\n') },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)) },
  { weight: 3, arbitrary: fc.constantFrom(...HARNESS).chain((w) => fc.constantFrom(w, w.toUpperCase(), w[0]!.toUpperCase() + w.slice(1))) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9]{4,12}$/) },
  { weight: 1, arbitrary: fc.constantFrom('é', 'İ', 'ß', '😀', 'Δ', '\u200b') },
);
const value = fc.array(piece, { maxLength: 30 }).map((a) => a.join(''));
const asciiValue = value.map((v) => v.replace(/[^\0-\x7f]/g, 'x'));

describe('learning a value by its codes', () => {
  it('learns what the words of the value as strings give, as a member', () => {
    fc.assert(fc.property(fc.array(value, { minLength: 1, maxLength: 8 }), (values) => expectLearned(learnAsMember(values), values, false, true)), { numRuns: 3000 });
  });

  it('learns what the words of the value as strings give, as a secret header', () => {
    fc.assert(fc.property(fc.array(asciiValue.filter((v) => v.trim().length > 0), { minLength: 1, maxLength: 8 }), (values) => expectLearned(learnAsHeader(values), values.map(credentialWords), false, false)), { numRuns: 3000 });
  });

  it('learns the edge cases alike: case, trimmed ends, colons, harness words alone and in pairs, long values', () => {
    const values = ['', 'a', 'ABCD', 'Flat 9 Baker Street', 'STRING', 'string null', 'String Token-X', 'sample-userName',
      'SAMPLE-USERNAME extra', '00:00:00 name: Value', '.-@x@-.', 'JDoe@Example.COM.', 'x:Y:', '::1', 'a+B~c_d', 'tab\there',
      'Zoë Ångström', 'İstanbul Street', `${'Ab'.repeat(3000)} tail`, 'credential personal', 'a b c d e f', 'abc de'];
    expectLearned(learnAsMember(values), values, false, true);
    expectLearned(learnAsHeader(values.filter((v) => v.trim())), values.filter((v) => v.trim()).map(credentialWords), false, false);
  });
});

describe('learning a parsed answer without a scope of its own', () => {
  const SENT = 'Zq9sentvalue';
  const generated = () => exchange({}, `{"userName":"${SENT}"}`, `{"userName":"${SENT}","searchValues":"x"}`, true);

  it('leaves out what a generated request sent, wherever its answer echoes it, and learns the rest', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [], maxLearned: MAX });
    r.learnFingerprints(generated(), { userName: SENT, password: 'Target-Own-Secret' });
    expect(r.line(`a ${SENT} b`)).toBe(`a ${SENT} b`);
    expect(r.line('a Target-Own-Secret b')).toBe('a «secret: 17 chars» b');
  });

  it('learns a value the run-wide redactor once saw a generated request send, when a target sends it', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [], maxLearned: MAX });
    r.learnExchange(generated()); // the run-wide redactor's own values now hold it
    r.learnFingerprints(exchange({}, '{}'), {}); // its URL then known to hold nothing: no scope made
    r.learnFingerprints(exchange({}, '{}'), { password: SENT });
    expect(r.line(`a ${SENT} b`)).toBe('a «secret: 12 chars» b');
  });
});

describe('learning into a shared set', () => {
  it('leaves every fingerprint of an exchange in the table when learnFingerprints returns, for another thread to read', () => {
    const main = new Redactor({ showPersonalData: false, secrets: [], maxLearned: MAX });
    // A judging worker's redactor opens the same table (lib/cli/judge-worker.ts); here on one thread.
    const worker = new Redactor({ showPersonalData: false, secrets: [], fingerprints: main.shareFingerprints() });
    worker.learnFingerprints(exchange({}, '{}'), { password: 'Worker-Learned-Token', name: 'x', nested: { apiKey: 'Second Secret-Words' } });
    expect(main.line('a Worker-Learned-Token b')).toBe('a «secret: 20 chars» b');
    expect(main.line('a second secret-words b')).toBe('a «secret: words» b');
  });
});
