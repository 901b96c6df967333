// Redacting a JSON text hides the secrets in it and changes nothing else: the result is JSON of the
// same shape (same types at the same paths, same array lengths, same members per object), every
// value and name that holds nothing learned reads as before, and nothing learned is left readable.
// What may change, by the head of lib/reporting/redact.ts: a string (value or member name) that holds
// a learned value or a piece of one (a secret written across two strings) stays a string, its secret
// masked; a number that holds one becomes a marker string (no number can say «…»); a member named as
// sensitive has its whole value replaced by a marker string.
// Learned values here are made of characters the rest of the text never holds (q-z, 5-9 against a-h,
// 0-4), so "holds something learned" is read off a value's characters.
import fc from 'fast-check';
import { parseTree, type Node } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { HARNESS_VALUES, HARNESS_WORDS } from '../lib/checks/harness-words.js';
import { sensitivityOfName } from '../lib/contract/sensitivity.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { MIN_PART, MIN_SCANNED, Redactor, wordsOf } from '../lib/reporting/redact.js';
import { canonical, canonicalValue } from '../lib/reporting/spellings.js';

const exchange = (headers: Record<string, string>): Exchange => ({
  id: 'case-1.login', title: 'login', origin: { source: 'case', vouched: true, case: 1 },
  request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json', ...headers }, body: '{}' },
  response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from('{}')),
  startedAt: new Date(0).toISOString(), durationMs: 1,
});

interface Learned {
  /** Configured secrets (searched in every spelling, across strings too). */
  readonly configured: string[];
  /** A credential member's values in an answer this scope learned as text (searched as the configured). */
  readonly answered: string[];
  /** A credential member's values learned as fingerprints only (another exchange's answer). */
  readonly members: Array<string | number>;
  /** Authorization header values learned as fingerprints. */
  readonly headers: string[];
}

function redactor(l: Learned): Redactor {
  const r = new Redactor({ showPersonalData: false, secrets: l.configured }).scope();
  for (const v of l.answered) r.learn(JSON.stringify({ password: v }));
  for (const v of l.members) r.learnFingerprints(exchange({}), { password: v });
  for (const h of l.headers) r.learnFingerprints(exchange({ authorization: h }), {});
  return r;
}

const harness = (w: string) => HARNESS_WORDS.has(w) || HARNESS_VALUES.has(w);
/** The words and two-word pairs a value's fingerprints hold (fingerprint() in redact.ts). */
function fingerprintsOf(value: string, withParts: boolean, pairs: boolean, into: Set<string>): void {
  const words = wordsOf(canonicalValue(value));
  const tokens = words.filter((t) => t.length >= MIN_SCANNED);
  for (const t of tokens) if ((tokens.length === 1 || withParts || t.length >= MIN_PART) && !harness(t)) into.add(t);
  if (pairs) for (let i = 1; i < words.length; i++) if (words[i - 1]!.length + words[i]!.length >= MIN_SCANNED && !(harness(words[i - 1]!) && harness(words[i]!))) into.add(`${words[i - 1]!} ${words[i]!}`);
}

/** What must not be readable after redaction: whole spelled values, and fingerprinted words and pairs. */
function secretsOf(l: Learned): { spelled: string[]; words: Set<string> } {
  const words = new Set<string>();
  for (const v of l.configured) fingerprintsOf(v, false, false, words);
  for (const v of l.headers) fingerprintsOf(v, true, false, words);
  for (const v of [...l.answered, ...l.members.map(String)]) fingerprintsOf(v, false, true, words);
  const spelled = [...l.configured, ...l.answered].map(canonicalValue).filter((s) => s.length >= MIN_PART);
  return { spelled, words };
}

// Learned values: q-z and 5-9 only.
const secretWord = fc.stringMatching(/^[Q-Zq-z5-9]{8,12}$/);
const shortWord = fc.stringMatching(/^[q-z]{2,5}$/);
const learned: fc.Arbitrary<Learned> = fc.record({
  configured: fc.array(secretWord, { maxLength: 1 }),
  answered: fc.array(secretWord, { maxLength: 1 }),
  members: fc.array(fc.oneof(secretWord, fc.tuple(shortWord, shortWord).map(([a, b]) => `${a} ${b}`), fc.stringMatching(/^[5-9]{8,10}$/).map(Number)), { minLength: 1, maxLength: 3 }),
  headers: fc.array(fc.stringMatching(/^[Q-Zq-z5-9]{10,16}$/).map((t) => `Bearer ${t}`), { maxLength: 1 }),
});

/** What a learned value is written as in the text: as is, in upper case, one letter as \u00XX,
 *  its words joined by punctuation, or in two pieces (a head, a tail that may begin with a
 *  character that shows nothing). */
const spellingOf = (v: string): fc.Arbitrary<string[]> => fc.oneof(
  fc.constant<string[]>([v]),
  fc.constant<string[]>([v.toUpperCase()]),
  fc.nat(v.length - 1).map((i) => [`${v.slice(0, i)}\\u00${v.charCodeAt(i).toString(16)}${v.slice(i + 1)}`]),
  fc.constant<string[]>([v.replace(/ /g, ', ')]),
  fc.tuple(fc.integer({ min: 1, max: Math.max(1, v.length - 1) }), fc.constantFrom('', '\\u200b', '\u200b', '\\u00ad')).map(([i, gap]) => [v.slice(0, i), gap + v.slice(i)]),
);

/** Filler that ends a word (a space, a quote, a backslash, a character no word is made of). */
const PARTING = new Set([' ', ', ', '\\"', '\\\\', '\\/', '\\n', '\\t', '😀']);

/** The JSON text of a value, built from what the learned values are written as. */
function jsonText(l: Learned): fc.Arbitrary<string> {
  const values = [...l.configured, ...l.answered, ...l.members.map(String), ...l.headers.map((h) => h.slice('Bearer '.length))];
  const spelledValue = fc.constantFrom(...values).chain(spellingOf);
  const filler = fc.oneof(
    fc.stringMatching(/^[a-hA-H0-4]{1,6}$/),
    fc.constantFrom(' ', ', ', ':', '.', '-', '\\"', '\\\\', '\\/', '\\u0041', '\\n', '\\t', 'é', '😀'),
  );
  // A string's source text (escapes as written) from pieces; a piece of a split value is its own string.
  // Two learned values in one word (Quokka7Zephyr:Wombat9Kiwi) are a word of neither, left alone by
  // the rules, and masking one would leave the other whole: a space parts them.
  const pieces = fc.array(fc.oneof({ weight: 3, arbitrary: filler.map((f) => ({ parts: [f], learned: false })) }, { weight: 2, arbitrary: spelledValue.map((parts) => ({ parts, learned: true })) }), { minLength: 1, maxLength: 4 })
    .map((ps) => {
      const out = [''];
      let inWord = false; // a learned value is in the word written last
      for (const p of ps) {
        out[out.length - 1] += (p.learned && inWord ? ' ' : '') + p.parts[0]!;
        out.push(...p.parts.slice(1));
        inWord = p.learned || (inWord && !PARTING.has(p.parts[0]!));
      }
      return out;
    });
  const str = pieces.map((ps) => ps[0]!);
  const quote = (s: string) => `"${s}"`;
  const space = fc.constantFrom('', ' ', '\n  ');
  const number = fc.oneof(
    fc.stringMatching(/^-?(?:0|[1-4][0-4]{0,3})(?:\.[0-4]{1,3})?(?:[eE][+-]?[1-4])?$/),
    fc.constantFrom(...l.members.filter((m) => typeof m === 'number').map(String), '0'),
    fc.constantFrom(...l.members.filter((m) => typeof m === 'number').map((m) => `${m}1`), '1'),
    fc.constantFrom(...l.members.filter((m) => typeof m === 'number').map((m) => `-${m}`), '-1'),
  );
  const scalar = fc.oneof({ weight: 4, arbitrary: str.map(quote) }, { weight: 2, arbitrary: number }, { weight: 1, arbitrary: fc.constantFrom('true', 'false', 'null') });
  const { tree } = fc.letrec<{ tree: string; array: string; object: string; split: string }>((tie) => ({
    tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object'), tie('split')),
    // Strings side by side: the pieces of a value written in two, as items or as members' values.
    split: fc.tuple(pieces, space, fc.boolean(), fc.array(fc.stringMatching(/^[a-hA-H0-4]{1,3}$/), { minLength: 4, maxLength: 4 }))
      .map(([ps, s, items, names]) => (items ? `[${ps.map(quote).join(`,${s}`)}]` : `{${ps.map((p, i) => `${quote(names[i]!)}:${s}${quote(p)}`).join(`,${s}`)}}`)),
    array: fc.tuple(fc.array(tie('tree'), { maxLength: 4 }), space).map(([items, s]) => `[${s}${items.join(`,${s}`)}${s}]`),
    object: fc.tuple(fc.array(fc.tuple(str, tie('tree')), { maxLength: 4 }), space)
      .map(([members, s]) => `{${s}${members.map(([k, v]) => `${quote(k)}${s}:${s}${v}`).join(`,${s}`)}${s}}`),
  }));
  return fc.oneof(tree.filter((t) => t.startsWith('[') || t.startsWith('{')), tree.map((t) => `[${t}]`));
}

/** Holds something learned (or is a piece of it): a character only learned values are made of. */
const touched = (reading: string): boolean => /[q-zQ-Z5-9\u200b\u00ad]/.test(reading);

/** The differences between a text and its redaction that the rules do not allow, at each path. */
function shapeFaults(before: Node, after: Node, path: string, faults: string[]): void {
  const say = (why: string) => faults.push(`${path || '$'}: ${why}`);
  if (before.type === 'string' || before.type === 'number' || before.type === 'boolean' || before.type === 'null') {
    const reading = before.type === 'string' ? before.value as string : JSON.stringify(before.value);
    if (!touched(reading)) {
      if (after.type !== before.type || after.value !== before.value) say(`${JSON.stringify(before.value)} became ${JSON.stringify(after.value)}`);
    } else if (!(after.type === before.type || after.type === 'string')) say(`a ${before.type} became a ${after.type}`);
    else if (before.type === 'string') {
      // What stands before the first learned character and after the last is no secret: kept.
      const [head, tail] = [/^[^q-zQ-Z5-9\u200b\u00ad]*/.exec(reading)![0], /[^q-zQ-Z5-9\u200b\u00ad]*$/.exec(reading)![0]];
      const out = after.value as string;
      if (!out.startsWith(head) || !out.endsWith(tail)) say(`${JSON.stringify(reading)} lost what stands around its secrets: ${JSON.stringify(out)}`);
    }
    return;
  }
  if (after.type !== before.type) { say(`a ${before.type} became a ${after.type}`); return; }
  const [a, b] = [before.children ?? [], after.children ?? []];
  if (a.length !== b.length) { say(`${a.length} ${before.type === 'array' ? 'items' : 'members'} became ${b.length}`); return; }
  for (let i = 0; i < a.length; i++) {
    if (before.type === 'array') { shapeFaults(a[i]!, b[i]!, `${path}[${i}]`, faults); continue; }
    const [name, value] = a[i]!.children!;
    const [name2, value2] = b[i]!.children!;
    shapeFaults(name!, name2!, `${path}.name(${i})`, faults);
    const kind = sensitivityOfName(name!.value as string);
    if (kind === 'credential' || kind === 'personal') { if (value2!.type !== 'string') say(`the sensitive ${JSON.stringify(name!.value)} holds a ${value2!.type}, not a marker`); continue; }
    shapeFaults(value!, value2!, `${path}.${JSON.stringify(name!.value)}`, faults);
  }
}

/** Every string's source text (escapes as written) and every number's, in text order. */
function scalars(node: Node, text: string, out: { strings: Array<{ raw: string; name: boolean }>; numbers: string[] }, name = false): void {
  if (node.type === 'string') out.strings.push({ raw: text.slice(node.offset + 1, node.offset + node.length - 1), name });
  else if (node.type === 'number') out.numbers.push(text.slice(node.offset, node.offset + node.length));
  else if (node.type === 'property') { scalars(node.children![0]!, text, out, true); if (node.children![1]) scalars(node.children![1], text, out); } else for (const c of node.children ?? []) scalars(c, text, out);
}

/** What is left readable of the learned values in a redacted text. */
function leftReadable(out: string, tree: Node, l: Learned): string[] {
  const { spelled, words } = secretsOf(l);
  const found: string[] = [];
  const parts = { strings: [] as Array<{ raw: string; name: boolean }>, numbers: [] as string[] };
  scalars(tree, out, parts);
  const readings = [...parts.strings.map((s) => s.raw), ...parts.numbers].map((s) => canonical(s).text);
  // A reader reads a value written in two strings as one: every string joined, and the values joined.
  const joined = [parts.strings.map((s) => s.raw).join(''), parts.strings.filter((s) => !s.name).map((s) => s.raw).join('')].map((s) => canonical(s).text);
  for (const s of spelled) for (const r of [...readings, ...joined]) if (r.includes(s)) found.push(`${s} in ${JSON.stringify(r)}`);
  for (const r of readings) {
    // Words and two words in a row, as layer 3 reads them (a quote or bracket in between parts them).
    for (const run of r.split(/["<>{}[\]]/)) {
      const ws = wordsOf(run);
      for (let i = 0; i < ws.length; i++) {
        if (words.has(ws[i]!)) found.push(`${ws[i]!} in ${JSON.stringify(r)}`);
        if (i > 0 && words.has(`${ws[i - 1]!} ${ws[i]!}`)) found.push(`${ws[i - 1]!} ${ws[i]!} in ${JSON.stringify(r)}`);
      }
    }
  }
  return found;
}

/** Why the redaction of `text` breaks the rules (none: it keeps them). */
function redactionFaults(l: Learned, text: string): string[] {
  const out = redactor(l).text(text);
  try { JSON.parse(out); } catch { return [`not JSON: ${out}`]; }
  const faults: string[] = [];
  const after = parseTree(out)!;
  shapeFaults(parseTree(text)!, after, '', faults);
  faults.push(...leftReadable(out, after, l));
  return faults.map((f) => `${f}\n  in ${out}`);
}

const NONE: Learned = { configured: [], answered: [], members: [], headers: [] };

describe('redacting a JSON text', () => {
  it('gives JSON of the same shape, changes only what holds a learned value, and leaves nothing learned readable', () => {
    const sample = learned.chain((l) => fc.tuple(fc.constant(l), jsonText(l)));
    fc.assert(fc.property(sample, ([l, text]) => {
      JSON.parse(text); // the generator's own check: a JSON text
      expect(redactionFaults(l, text)).toEqual([]);
    }), { numRuns: Number(process.env.RUNS ?? 200), seed: Number(process.env.SEED ?? 20261126) });
  });

  it('keeps two strings two when a learned value is written across them, a character that shows nothing starting the second', () => {
    const l = { ...NONE, configured: ['Quokka7Zephyr'] };
    expect(redactionFaults(l, '["Quokka7","\\u200bZephyr"]')).toEqual([]);
    // Each piece as a piece of a value written in two is masked (the marker states the value's length).
    expect(redactor(l).text('["Quokka7","\\u200bZephyr"]')).toBe('["«secret header: string, 13 chars»","«secret header: string, 13 chars»"]');
  });

  it('masks neither the name nor the value between two members\' values a learned value is written across', () => {
    const l = { ...NONE, configured: ['Quokka7Zephyr'] };
    expect(redactor(l).text('{"a":"Quokka7","b":"\\u200bZephyr"}')).toBe('{"a":"«secret header: string, 13 chars»","b":"«secret header: string, 13 chars»"}');
    expect(redactor(l).text('["Quokka7",1,"\\u200bZephyr"]')).toBe('["«secret header: string, 13 chars»",1,"«secret header: string, 13 chars»"]');
  });

  it('keeps two strings two, each closed, when a learned value is read across them through an escaped backslash', () => {
    // Read across the two, \\ and u0068 spell the h: both strings are masked, each within its quotes.
    expect(redactor({ ...NONE, configured: ['Quokka7Zeph'] }).text('["Quokka7Zep\\\\", "u0068"]')).toBe('["«secret header: string, 11 chars»", "«secret header: string, 11 chars»"]');
  });

  it('writes a learned number found as a number as a marker string, the whole number hidden', () => {
    const l = { ...NONE, members: [56789567] };
    expect(redactionFaults(l, '{"n":56789567,"m":[567895671]}')).toEqual([]);
    expect(redactor(l).text('{"n":56789567}')).toBe('{"n":"«secret: 8 chars»"}');
    // A configured secret is found inside a longer number: no part of a number can be a marker.
    expect(redactor({ ...NONE, configured: ['56789567'] }).text('[567895671,-56789567]')).toBe('["«secret header: string, 9 chars»","«secret header: string, 9 chars»"]');
  });

  it('does not read two numbers of an array as the two learned words of one value', () => {
    const l = { ...NONE, members: ['5678 9567'] };
    expect(redactor(l).text('[5678, 9567]')).toBe('[5678, 9567]');
    expect(redactor(l).text('["5678, 9567"]')).toBe('["«secret: words»"]');
  });

  it('masks a form parameter named as sensitive, written inside a JSON string, within that string', () => {
    // The form walker reads the value to the end of the text: the closing quote and brace stay.
    expect(redactor(NONE).text('{"q":"user=a&password=Quokka7Zephyr"}')).toBe('{"q":"user=a&password=«credential: string, 13 chars»"}');
  });

  it('masks a learned member name as a string, and leaves its value as it was', () => {
    expect(redactor({ ...NONE, members: ['Quokka7Zephyr'] }).text('{"Quokka7Zephyr":"abc"}')).toBe('{"«secret: 13 chars»":"abc"}');
  });
});
