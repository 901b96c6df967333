// A fast path for parseJson: a plain JSON text (valid, well within the body limits, every number a
// plain integer literal of under 16 characters, no member name twice in one object) read in one
// pass, which measures the limits as it goes, into exactly the value JSON.parse builds for it.
// JSON.parse pays for every string value it has not met before (V8 keeps short ones in its string
// table): a population answer it never saw costs it about four times one it did, and every account's
// answer is new. Anything else, and any doubt, is handed back (NOT_PLAIN), and parse.ts reads the
// text as before: every error, limit message, lexeme and repeated key stays that path's.
// test/plain-json.test.ts compares the two on answers, fixtures and broken texts.
import { BODY_LIMITS } from '../body-limits.js';
import { detachedText } from '../detached.js';
import type { JsonObject, JsonValue } from './value.js';

/** Handed back for a text this path does not read. */
export const NOT_PLAIN: unique symbol = Symbol('not plain JSON');

/** Room kept below each limit, so a text this path reads is one measureJson passes whole. */
const MAX_NODES = BODY_LIMITS.nodes - 2;
const MAX_MEMBERS = BODY_LIMITS.children - 2;
const MAX_NAME = BODY_LIMITS.nameLength - 8;
/** Integer literals shorter than this are kept exactly by a double (measureJson's inexact from 16). */
const MAX_INTEGER_LENGTH = 15;

/** Member names remembered, each by the name before it in its object (a marker for the first):
 *  at most this many, of at most this length, emptied when full. */
const MAX_GUESSES = 4096;
const MAX_GUESSED = 64;
const NEXT_NAME = new Map<string, string>();

class NotPlain extends Error {}
const notPlain = new NotPlain();


/** What each one-character escape stands for, by the code after the backslash. */
const SINGLE: Readonly<Record<number, string>> = { 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t' };

const hex = (c: number): number => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1);

class Reader {
  private i = 0;
  private nodes = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  whole(): JsonValue {
    const v = this.value();
    this.blank();
    if (this.i !== this.text.length) throw notPlain;
    return v;
  }

  private blank(): void {
    const t = this.text;
    for (let c = t.charCodeAt(this.i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = t.charCodeAt(++this.i));
  }

  private value(): JsonValue {
    this.blank();
    if (++this.nodes > MAX_NODES) throw notPlain;
    const t = this.text;
    const c = t.charCodeAt(this.i);
    if (c === 0x22) return this.string();
    if (c === 0x7b) return this.object();
    if (c === 0x5b) return this.array();
    if (c === 0x74 && t.startsWith('true', this.i)) { this.i += 4; return true; }
    if (c === 0x66 && t.startsWith('false', this.i)) { this.i += 5; return false; }
    if (c === 0x6e && t.startsWith('null', this.i)) { this.i += 4; return null; }
    return this.integer();
  }

  /** -?(0|[1-9][0-9]*), followed by no fraction or exponent. */
  private integer(): number {
    const t = this.text;
    const start = this.i;
    if (t.charCodeAt(this.i) === 0x2d) this.i++;
    const first = t.charCodeAt(this.i);
    if (first === 0x30) this.i++;
    else if (first >= 0x31 && first <= 0x39) {
      for (let d = t.charCodeAt(++this.i); d >= 0x30 && d <= 0x39; d = t.charCodeAt(++this.i));
    } else throw notPlain;
    const next = t.charCodeAt(this.i);
    if (next === 0x2e || next === 0x65 || next === 0x45 || (next >= 0x30 && next <= 0x39) || this.i - start > MAX_INTEGER_LENGTH) throw notPlain;
    return Number(t.slice(start, this.i));
  }

  /** At the opening quote: the string's value. */
  private string(): string {
    const t = this.text;
    const start = ++this.i;
    for (let c = t.charCodeAt(this.i); this.i < t.length; c = t.charCodeAt(++this.i)) {
      if (c === 0x22) return detachedText(t.slice(start, this.i++));
      if (c === 0x5c) return this.escaped(start);
      if (c < 0x20) throw notPlain;
    }
    throw notPlain;
  }

  /** The rest of a string from its first backslash, escapes decoded as JSON.parse decodes them. */
  private escaped(start: number): string {
    const t = this.text;
    let out = t.slice(start, this.i);
    while (this.i < t.length) {
      const c = t.charCodeAt(this.i);
      if (c === 0x22) { this.i++; return detachedText(out); }
      if (c < 0x20) throw notPlain;
      if (c !== 0x5c) {
        const from = this.i;
        for (let d = c; this.i < t.length && d !== 0x22 && d !== 0x5c && d >= 0x20; d = t.charCodeAt(++this.i));
        out += t.slice(from, this.i);
        continue;
      }
      const e = t.charCodeAt(this.i + 1);
      if (e === 0x75) {
        const u = (hex(t.charCodeAt(this.i + 2)) << 12) | (hex(t.charCodeAt(this.i + 3)) << 8) | (hex(t.charCodeAt(this.i + 4)) << 4) | hex(t.charCodeAt(this.i + 5));
        if (u < 0) throw notPlain; // a digit that is not hex makes some part negative, hence the whole
        out += String.fromCharCode(u);
        this.i += 6;
        continue;
      }
      const single = SINGLE[e];
      if (single === undefined) throw notPlain;
      out += single;
      this.i += 2;
    }
    throw notPlain;
  }

  private open(): void {
    if (++this.depth > BODY_LIMITS.depth) throw notPlain;
    this.i++;
    this.blank();
  }

  private object(): JsonObject {
    this.open();
    const t = this.text;
    const o: JsonObject = {};
    if (t.charCodeAt(this.i) === 0x7d) { this.i++; this.depth--; return o; }
    let previous = '\u0000{';
    for (let members = 1; ; members++) {
      this.blank();
      if (t.charCodeAt(this.i) !== 0x22 || members > MAX_MEMBERS || ++this.nodes > MAX_NODES) throw notPlain;
      const from = this.i;
      // The name that followed `previous` last time, compared in place: a record's names come in the
      // same order answer after answer, and a name read this way is not cut out of the text again.
      const guess = NEXT_NAME.get(previous);
      let name: string;
      if (guess !== undefined && t.startsWith(guess, from + 1) && t.charCodeAt(from + 1 + guess.length) === 0x22) {
        name = guess;
        this.i = from + guess.length + 2;
      } else {
        name = this.string();
        if (this.i - from > MAX_NAME) throw notPlain;
        // Only a name written without escapes stands for the same characters in the text.
        if (this.i - from === name.length + 2 && name.length <= MAX_GUESSED) {
          if (NEXT_NAME.size >= MAX_GUESSES) NEXT_NAME.clear();
          NEXT_NAME.set(previous, name);
        }
      }
      previous = name;
      this.blank();
      if (t.charCodeAt(this.i) !== 0x3a) throw notPlain;
      this.i++;
      const v = this.value();
      // A name given twice (or one Object.prototype answers, __proto__ among them): parse.ts's.
      if (o[name] !== undefined) throw notPlain;
      o[name] = v;
      this.blank();
      const c = t.charCodeAt(this.i++);
      if (c === 0x2c) continue;
      if (c === 0x7d) { this.depth--; return o; }
      throw notPlain;
    }
  }

  private array(): JsonValue[] {
    this.open();
    const t = this.text;
    const a: JsonValue[] = [];
    if (t.charCodeAt(this.i) === 0x5d) { this.i++; this.depth--; return a; }
    for (;;) {
      if (a.length >= MAX_MEMBERS) throw notPlain;
      a.push(this.value());
      this.blank();
      const c = t.charCodeAt(this.i++);
      if (c === 0x2c) continue;
      if (c === 0x5d) { this.depth--; return a; }
      throw notPlain;
    }
  }
}

/** The value of a plain JSON text (see the head of this file), or NOT_PLAIN. */
export function plainJson(text: string): JsonValue | typeof NOT_PLAIN {
  try {
    return new Reader(text).whole();
  } catch (e) {
    if (e === notPlain) return NOT_PLAIN;
    throw e;
  }
}
