// Two shortcuts of the learner (redact.ts) must learn exactly what the plain walk learns, in the same
// order (the table's slots, compared whole, depend on it): a request body read as text when it is a
// flat JSON object (learnFlatObject), and a member's sensitivity found through the names that came
// before it (NamedMember) rather than looked up per name.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HARNESS_VALUES, HARNESS_WORDS } from '../lib/checks/harness-words.js';
import { sensitivityOfName } from '../lib/contract/sensitivity.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { jsonLimitPassed } from '../lib/json/limits.js';
import type { JsonValue } from '../lib/json/value.js';
import { FingerprintSet } from '../lib/reporting/fingerprints.js';
import { MIN_PART, MIN_SCANNED, Redactor, wordsOf } from '../lib/reporting/redact.js';
import { canonicalValue } from '../lib/reporting/spellings.js';

const MAX = 1 << 16;

function exchange(response: string, request: string): Exchange {
  return {
    id: 'case-1.login', title: 'login', origin: { source: 'case', vouched: true, case: 1 },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json' }, ...(request ? { body: request } : {}) },
    response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from(response)),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
}

const tagsOf = (r: Redactor): Uint32Array => {
  const set = (r as unknown as { shared: { fingerprints: FingerprintSet } }).shared.fingerprints;
  expect(set.size).toBeGreaterThanOrEqual(0); // adds what is deferred
  return (set as unknown as { tags?: Uint32Array }).tags ?? new Uint32Array(0);
};
/** `maxLearned`: a small bound makes the order of learning matter (what comes first is kept). */
const redactor = (showPersonalData = false, maxLearned = MAX) => new Redactor({ showPersonalData, secrets: [], maxLearned });
const bound = fc.constantFrom(MAX, 12, 40);
/** A body as the learner parses it (parseQuietly): not past the body limits, JSON. */
const parsedOrNot = (text: string): JsonValue | undefined => {
  if (jsonLimitPassed(text)) return undefined;
  try { return JSON.parse(text) as JsonValue; } catch { return undefined; }
};

describe('a request body read as text', () => {
  const names = ['password', 'userName', 'recoveryToken', 'searchValues', 'ownerId', 'isForMM', 'x', 'apiKey', '0', '12', '__proto__', 'pass\\u0077ord', 'Émail', 'toString', 'session_id'];
  const strings = ['user0', 'Flat 9 Baker Street', 's0', '', 'Zoë Ångström', 'a\\"b', 'tab\there', 'line\\nbreak', 'u0@example.org', 'STRING', 'Unspecified', '\\u0041bcd-efgh', 'x'.repeat(40)];
  const value = fc.oneof(
    fc.constantFrom(...strings).map((s) => `"${s}"`),
    fc.constantFrom('0', '-0', '7', '-12', '123456789012345', '1234567890123456', '1.5', '1e3', '0012', '-', '2147483648', '9'.repeat(70), 'true', 'false', 'null', 'nul', 'truex'),
    fc.constantFrom('{"password":"Inner-Secret"}', '[1,"Array-Secret-Value"]', '{}', '[]'),
  );
  const space = fc.constantFrom('', '', '', ' ', '\n\t ', '\r\n', '\u00a0');
  const member = fc.tuple(fc.constantFrom(...names), value, space, space).map(([n, v, a, b]) => `${a}"${n}"${b}:${a}${v}${b}`);
  const body = fc.tuple(fc.array(member, { maxLength: 7 }), space, space, fc.constantFrom('{', '{', '{', '{', '', '['), fc.constantFrom('', '', '', '', ',', ' x', '}', '\u0000'))
    .map(([ms, a, b, open, tail]) => `${a}${open}${ms.join(',')}}${b}${tail}`);

  it('learns what the parsed body (or, not JSON, its text) gives, in the same order', () => {
    fc.assert(fc.property(fc.array(body, { minLength: 1, maxLength: 4 }), fc.boolean(), bound, (bodies, showPersonalData, max) => {
      const asRequest = redactor(showPersonalData, max);
      const asParsed = redactor(showPersonalData, max);
      for (const text of bodies) {
        asRequest.learnFingerprints(exchange('{}', text), {});
        // The plain walk: the body handed over parsed, as an answer is; the text path when it is no JSON.
        asParsed.learnFingerprints(exchange(text, ''), parsedOrNot(text));
      }
      expect(Buffer.from(tagsOf(asRequest).buffer).equals(Buffer.from(tagsOf(asParsed).buffer))).toBe(true);
    }), { numRuns: 3000 });
  });

  it('learns an accounts line\'s request as written and a number as its value', () => {
    const r = redactor();
    r.learnFingerprints(exchange('{}', '{"recoveryToken":"rt-Token-0001","verifyEmail":"verify-Box-0001","ownerId":-0,"isForMM":false,"systemCode":"Unspecified"}'), {});
    r.learnFingerprints(exchange('{}', ' {\n "password" : 123456789 , "userName":"user-Name-01"}\n'), {});
    expect(r.line('rt-token-0001 verify-box-0001 user-name-01')).toBe('«secret: 13 chars» «secret: 15 chars» «secret: 12 chars»');
    expect(r.line('a 123456789 b')).toBe('a «secret: 9 chars» b');
    expect(r.line('Unspecified')).toBe('Unspecified');
  });
});

/** The fingerprints the rules give a value as a hidden member's, as strings, in order. */
function expected(value: string): string[] {
  const harness = (w: string) => HARNESS_WORDS.has(w) || HARNESS_VALUES.has(w);
  const words = wordsOf(canonicalValue(value));
  const tokens = words.filter((t) => t.length >= MIN_SCANNED);
  const out = tokens.filter((t) => (tokens.length === 1 || t.length >= MIN_PART) && !harness(t));
  for (let i = 1; i < words.length; i++) {
    const [a, b] = [words[i - 1]!, words[i]!];
    if (a.length + b.length >= MIN_SCANNED && !(harness(a) && harness(b))) out.push(`${a} ${b}`);
  }
  return out;
}

/** Every hidden string and number of a parsed answer, walked by Object.keys and the name's sensitivity. */
function hiddenValues(v: JsonValue, showPersonalData: boolean, hidden = false, out: string[] = []): string[] {
  if (v === null || typeof v === 'boolean') return out;
  if (typeof v === 'string' || typeof v === 'number') { if (hidden) out.push(String(v)); return out; }
  if (Array.isArray(v)) { for (const x of v) hiddenValues(x, showPersonalData, hidden, out); return out; }
  for (const k of Object.keys(v)) {
    const kind = sensitivityOfName(k);
    hiddenValues(v[k]!, showPersonalData, hidden || kind === 'credential' || (kind === 'personal' && !showPersonalData), out);
  }
  return out;
}

describe('a member\'s sensitivity through the names before it', () => {
  const names = ['userName', 'email', 'firstName', 'ownerId', 'isForMM', 'hxToken', 'apiKey', 'address', 'centerId', 'misc', 'notes', 'Password', 'x'.repeat(70), 'associatedIds', 'system'];
  const leaf = fc.oneof(fc.constantFrom('Flat 9 Baker Street', 'user0.vGSu@example.org', 'last scQTPA', 'Δημήτρης', 'string', null, true, 4711, -0, 'Zq9-Secret-Value'));
  const answer = fc.letrec<{ value: JsonValue }>((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 3 }),
      fc.uniqueArray(fc.tuple(fc.constantFrom(...names), tie('value')), { selector: ([n]) => n, maxLength: 8 }).map((ms) => Object.fromEntries(ms) as JsonValue)),
  })).value;
  /** Objects whose names come in one order, one left out or two swapped now and then. */
  const record = fc.tuple(fc.subarray(names), fc.array(answer, { minLength: 15, maxLength: 15 }), fc.nat(14), fc.boolean())
    .map(([ns, vs, k, swap]) => {
      const order = [...ns];
      if (swap && order.length > k + 1) [order[k], order[k + 1]] = [order[k + 1]!, order[k]!];
      return Object.fromEntries(order.map((n, i) => [n, vs[i]!])) as JsonValue;
    });

  it('learns every hidden value of answers whose names come and go, in the walk\'s order', () => {
    fc.assert(fc.property(fc.array(fc.oneof(record, answer), { minLength: 1, maxLength: 10 }), fc.boolean(), bound, (answers, showPersonalData, max) => {
      const r = redactor(showPersonalData, max);
      const want = new FingerprintSet(max);
      for (const a of answers) {
        r.learnFingerprints(exchange('{}', ''), a);
        for (const v of hiddenValues(a, showPersonalData)) for (const f of expected(v)) want.add(f);
      }
      const wanted = (want as unknown as { tags?: Uint32Array }).tags ?? new Uint32Array(0);
      expect(Buffer.from(tagsOf(r).buffer).equals(Buffer.from(wanted.buffer))).toBe(true);
    }), { numRuns: 1500 });
  });
});

describe('a header name\'s answer, remembered', () => {
  it('is asked again once secretHeader() names the header: its value is then hidden', () => {
    const r = redactor();
    expect(r.header('X-Tenant-Key', 'Tenant-Value-0001')).toBe('Tenant-Value-0001');
    r.secretHeader('x-tenant-key');
    expect(r.header('X-Tenant-Key', 'Tenant-Value-0001')).toBe('«secret header: string, 17 chars»');
    r.learnFingerprints({ ...exchange('{}', ''), response: recordedResponse(200, { 'X-Tenant-Key': 'Tenant-Value-0002' }, Buffer.from('{}')) }, {});
    expect(r.line('a tenant-value-0002 b')).toBe('a «secret: 17 chars» b');
  });
});

describe('a long ASCII value', () => {
  it('is learned from a copy of its codes: its first, middle and last two words in a row are masked', () => {
    // Past 64 Ki characters a value is learned from a copy of its codes (learnLongAscii), not word by word as strings.
    const words = Array.from({ length: 14_000 }, (_, i) => `w${i.toString(36).padStart(4, '0')}`);
    const value = words.join(' ');
    expect(value.length).toBeGreaterThan(64 * 1024);
    const r = redactor();
    r.learnFingerprints(exchange(JSON.stringify({ password: value }), ''), { password: value });
    const [first, second, last] = [`${words[0]} ${words[1]}`, `${words[6999]} ${words[7000]}`, `${words.at(-2)} ${words.at(-1)}`];
    const shown = r.text(`echoed: ${first}; ${second}; ${last}.`);
    expect([shown.includes(first), shown.includes(second), shown.includes(last), shown.startsWith('echoed: ')]).toEqual([false, false, false, true]);
  });
});
