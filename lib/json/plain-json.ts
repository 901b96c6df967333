// A fast path for parseJson: a plain JSON text (valid, well within the body limits, every number a
// plain integer literal of under 16 characters, no member name twice in one object) read in one
// pass, which measures the limits as it goes, into exactly the value JSON.parse builds for it.
// JSON.parse pays for every string value it has not met before (V8 keeps short ones in its string
// table): a population answer it never saw costs it about four times one it did, and every account's
// answer is new. Anything else, and any doubt, is handed back (NOT_PLAIN), and parse.ts reads the
// text as before: every error, limit message, lexeme and repeated key stays that path's.
// An answer's bytes are read as they came (plainJsonBytes), without decoding them first: through
// their Latin-1 view, in which a string without a byte above 0x7F reads as itself (decoding UTF-8 to
// a two-byte string cost about a fifth of the whole read, and every value sliced from it was two-byte).
// test/plain-json.test.ts compares the two on answers, fixtures and broken texts.
import { isUtf8 } from 'node:buffer';
import { BODY_LIMITS } from '../body-limits.js';
import { detachedText } from '../detached.js';
import type { JsonObject, JsonValue } from './value.js';

/** Handed back for a text this path does not read. */
export const NOT_PLAIN: unique symbol = Symbol('not plain JSON');

/** Room kept below each limit, so a text this path reads is one measureJson passes whole (and one
 *  lib/checks/fast-record.ts scans keeps the same room). */
export const MAX_NODES = BODY_LIMITS.nodes - 2;
export const MAX_MEMBERS = BODY_LIMITS.children - 2;
export const MAX_NAME = BODY_LIMITS.nameLength - 8;
/** Integer literals shorter than this are kept exactly by a double (measureJson's inexact from 16). */
export const MAX_INTEGER_LENGTH = 15;

/** A member name met before, ASCII without escapes (the same characters in a text and in the
 *  Latin-1 view of its bytes): the names that followed it in an object, the most frequent first, tried first
 *  for the next member (a record's names come in the same order answer after answer; more than one
 *  where a member is left out, as an optional one is when null, or where objects of several shapes
 *  share a name), and its number, by which repeats are found without looking the name up in the
 *  object. */
interface Known {
  readonly name: string;
  readonly index: number;
  readonly after: Known[];
  /** The names that came first in an object held by a member of this name (or an item of it). */
  readonly first: Known[];
  /** An array index ("0", "42"): Object.keys lists those first, in numeric order. */
  readonly arrayIndex: boolean;
  /** Its token, the name between quotes, in 32-bit little-endian words of its bytes, each read at 4k
   *  from the opening quote but the last, read at the token's end - 4 (see spellsBytes). */
  readonly words: Int32Array;
  /** The last object it held had more than LISTED_FROM members. */
  large: boolean;
}

/** At most this many names are known, of at most this length, each with at most this many names after
 *  it; all are forgotten when the table is full, before a text is read (never during one, so that a
 *  name has one number throughout a text). */
const MAX_KNOWN = 4096;
const MAX_KNOWN_LENGTH = 64;
const MAX_AFTER = 8;
const KNOWN = new Map<string, Known>();
const newKnown = (name: string, index: number): Known => ({ name, index, after: [], first: [], arrayIndex: isArrayIndex(name), large: false, words: wordsOf(`"${name}"`) });

/** The words of an ASCII token (see Known.words); none for one shorter than a word. */
export function wordsOf(token: string): Int32Array {
  const n = token.length;
  const words = new Int32Array(n < 4 ? 0 : Math.ceil(n / 4));
  const word = (at: number): number => token.charCodeAt(at) | (token.charCodeAt(at + 1) << 8) | (token.charCodeAt(at + 2) << 16) | (token.charCodeAt(at + 3) << 24);
  for (let k = 0; k < words.length - 1; k++) words[k] = word(4 * k);
  if (words.length > 0) words[words.length - 1] = word(n - 4);
  return words;
}

/** Whether `name` is an array index, which an object lists before its other names (ECMA-262 10.1.11.1). */
export const isArrayIndex = (name: string): boolean => /^(0|[1-9][0-9]{0,9})$/.test(name) && Number(name) < 2 ** 32 - 1;

/** Objects of more members than this have their names listed as read (V8 keeps an object given that
 *  many names one by one as a dictionary, and Object.keys then sorts them again on every listing). */
const LISTED_FROM = 16;
/** What holds the text's own value, and every value held by a name not known. */
let ROOT = newKnown('', -1);
let UNKNOWN = newKnown('', -1);
/** Per known name's number: the object that last took it (see Reader.object). */
const TAKEN_BY = new Float64Array(MAX_KNOWN);
/** Numbers objects, run-wide: a TAKEN_BY entry of an earlier text is below every later object's. */
let objects = 0;

/** `name` as V8 keeps it as a property key (internalized): a name used as a key again and again is
 *  then found without being looked up in the string table first. */
const interned = (name: string): string => Object.keys({ [name]: 0 })[0] ?? name;

/** Whether the string token at `from` (its opening quote) is exactly `name`, a name without escapes:
 *  its closing quote first, which tells most other names apart at once. */
function spells(t: string, from: number, name: string): boolean {
  const n = name.length;
  if (t.charCodeAt(from + 1 + n) !== 0x22) return false;
  for (let k = 0; k < n; k++) if (t.charCodeAt(from + 1 + k) !== name.charCodeAt(k)) return false;
  return true;
}

/** spells, on the bytes of a text (`t` their Latin-1 view), four at a time. */
function spellsBytes(t: string, bytes: DataView, from: number, known: Known): boolean {
  const n = known.name.length;
  if (t.charCodeAt(from + 1 + n) !== 0x22) return false; // also past the end (NaN)
  const words = known.words;
  const last = words.length - 1;
  if (last < 0) return spells(t, from, known.name);
  for (let k = 0; k < last; k++) if (bytes.getInt32(from + 4 * k, true) !== words[k]) return false;
  return bytes.getInt32(from + n + 2 - 4, true) === words[last];
}

/** The stacks of a Reader, kept from one text to the next: arrays made anew for each text were grown
 *  again and again, and changed their kind of elements, at a tenth of the cost of a read. Emptied of
 *  a text's values and names when it has been read, and dropped when one grew them past STACK_KEPT. */
let STACKS = { held: [] as number[], names: [] as string[], values: [] as JsonValue[] };
const STACK_KEPT = 4096;

/** How many places of the stacks hold a name or a value, and how many places they have (for the tests:
 *  none between reads). */
export const plainJsonStacks = (): { readonly holding: number; readonly places: number } => ({
  holding: STACKS.names.filter((n) => n !== '').length + STACKS.values.filter((v) => v !== null).length,
  places: STACKS.names.length,
});

class NotPlain extends Error {}
const notPlain = new NotPlain();

/** What each one-character escape stands for, by the code after the backslash. */
const SINGLE: Readonly<Record<number, string>> = { 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t' };

const hex = (c: number): number => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1);

/** Whether `c` is JSON whitespace (space, line feed, carriage return, tab). */
export const isBlank = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

// The position is kept in a local while a token is scanned and written back once; a code past the end
// is NaN, which every comparison below refuses, so the scans need no separate bound.
class Reader {
  private i = 0;
  private nodes = 0;
  private depth = 0;

  /** `text`: the text, or the Latin-1 view of `bytes` (valid UTF-8), from which a string holding a
   *  byte above 0x7F is decoded. */
  constructor(private readonly text: string, private readonly bytes?: Buffer) {
    this.view = bytes && new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private readonly view: DataView | undefined;

  /** Whether the last string read held a character (or, in the Latin-1 view, a byte) above 0x7F. */
  private wide = false;

  /** The characters of the text from `from` to `to`: decoded from the bytes when `wide` and read from
   *  bytes (a string of its own), else sliced from the text. */
  private piece(from: number, to: number, wide: boolean): string {
    return wide && this.bytes !== undefined ? this.bytes.toString('utf8', from, to) : this.text.slice(from, to);
  }

  whole(): JsonValue {
    const v = this.value(ROOT);
    this.blank();
    if (this.i !== this.text.length) throw notPlain;
    return v;
  }

  private blank(): void {
    const t = this.text;
    let i = this.i;
    while (isBlank(t.charCodeAt(i))) i++;
    this.i = i;
  }

  /** The code at the position after any whitespace (most texts have none between tokens). */
  private next(): number {
    const c = this.text.charCodeAt(this.i);
    if (!isBlank(c)) return c;
    this.blank();
    return this.text.charCodeAt(this.i);
  }

  /** `holder`: the member it is the value of, or whose item it is. */
  private value(holder: Known): JsonValue {
    const c = this.next();
    if (++this.nodes > MAX_NODES) throw notPlain;
    if (c === 0x22) return this.string();
    if (c === 0x7b) return this.object(holder);
    if (c === 0x5b) return this.array(holder);
    if (c === 0x74) return this.word('true', true);
    if (c === 0x66) return this.word('false', false);
    if (c === 0x6e) return this.word('null', null);
    return this.integer(c);
  }

  /** At the first letter of `w` (value() saw it): `w`, compared letter by letter (a call of
   *  startsWith for each of a record's many booleans cost more). */
  private word<T extends JsonValue>(w: string, v: T): T {
    const t = this.text;
    const i = this.i;
    for (let k = 1; k < w.length; k++) if (t.charCodeAt(i + k) !== w.charCodeAt(k)) throw notPlain;
    this.i += w.length;
    return v;
  }

  /** -?(0|[1-9][0-9]*), followed by no fraction or exponent; its value summed digit by digit (exact
   *  below 2^53, which MAX_INTEGER_LENGTH keeps it), as Number() of the literal gives it. */
  private integer(first: number): number {
    const t = this.text;
    const start = this.i;
    let i = start;
    let c = first;
    const negative = c === 0x2d;
    if (negative) c = t.charCodeAt(++i);
    let n = 0;
    if (c === 0x30) c = t.charCodeAt(++i);
    else if (c >= 0x31 && c <= 0x39) {
      do { n = n * 10 + (c - 0x30); c = t.charCodeAt(++i); } while (c >= 0x30 && c <= 0x39);
    } else throw notPlain;
    if (c === 0x2e || c === 0x65 || c === 0x45 || (c >= 0x30 && c <= 0x39) || i - start > MAX_INTEGER_LENGTH) throw notPlain;
    this.i = i;
    return negative ? -n : n;
  }

  /** At the opening quote: the string's value. */
  private string(): string {
    if (this.bytes !== undefined) return this.stringOf(this.bytes);
    const t = this.text;
    const start = this.i + 1;
    let i = start;
    let wide = false;
    for (let c = t.charCodeAt(i); c !== 0x22; c = t.charCodeAt(++i)) {
      if (c === 0x5c) { this.i = i; return this.escaped(start, wide); }
      if (!(c >= 0x20)) throw notPlain; // a control character, or the end of the text (NaN)
      if (c >= 0x80) wide = true;
    }
    this.i = i + 1;
    this.wide = wide;
    return detachedText(t.slice(start, i));
  }

  /** string(), its characters scanned in the bytes (an element of a Uint8Array is read faster than a
   *  character of a string), sliced from their Latin-1 view or decoded from them. */
  private stringOf(b: Buffer): string {
    const start = this.i + 1;
    let i = start;
    let wide = false;
    for (let c = b[i]; c !== 0x22; c = b[++i]) {
      if (c === 0x5c) { this.i = i; return this.escaped(start, wide); }
      if (!(c! >= 0x20)) throw notPlain; // a control character, or the end of the bytes (undefined)
      if (c! >= 0x80) wide = true;
    }
    this.i = i + 1;
    this.wide = wide;
    return wide ? b.toString('utf8', start, i) : detachedText(this.text.slice(start, i));
  }

  /** The rest of a string from its first backslash (at the position), escapes decoded as JSON.parse
   *  decodes them; `wide`: whether the part before it held a character above 0x7F. */
  private escaped(start: number, wide: boolean): string {
    const t = this.text;
    let i = this.i;
    let out = this.piece(start, i, wide);
    let anyWide = wide;
    for (;;) {
      let c = t.charCodeAt(i);
      if (c === 0x22) { this.i = i + 1; this.wide = anyWide; return detachedText(out); }
      if (c === 0x5c) {
        const e = t.charCodeAt(i + 1);
        if (e === 0x75) {
          const u = (hex(t.charCodeAt(i + 2)) << 12) | (hex(t.charCodeAt(i + 3)) << 8) | (hex(t.charCodeAt(i + 4)) << 4) | hex(t.charCodeAt(i + 5));
          if (u < 0) throw notPlain; // a digit that is not hex makes some part negative, hence the whole
          out += String.fromCharCode(u);
          i += 6;
        } else {
          const single = SINGLE[e];
          if (single === undefined) throw notPlain;
          out += single;
          i += 2;
        }
        continue;
      }
      const from = i;
      let run = false;
      for (; c !== 0x22 && c !== 0x5c; c = t.charCodeAt(++i)) {
        if (!(c >= 0x20)) throw notPlain;
        if (c >= 0x80) run = true;
      }
      // Between escapes (ASCII), a run of valid UTF-8 is whole characters.
      out += this.piece(from, i, run);
      anyWide ||= run;
    }
  }

  private open(): void {
    if (++this.depth > BODY_LIMITS.depth) throw notPlain;
    this.i++;
  }

  /** What name() read when it was no known name. */
  private unknown = '';
  /** Known names' numbers with the object that held each before an object took it, to hand back when
   *  the object ends (its parent may take the same name next): pairs, `undo` entries in use. */
  private readonly held = STACKS.held;
  private undo = 0;
  /** The names of the open objects, each object's above its parent's: `named` in use. */
  private readonly names = STACKS.names;
  private named = 0;
  /** The most of `names` and `values` in use at once, by objects ended. */
  private top = 0;
  /** How many places of `names` and `values` the text has used so far. */
  used(): number {
    return Math.max(this.top, this.named);
  }
  /** Each object of more than LISTED_FROM members with its names as Object.keys lists them, and
   *  their values in that order (read by place, not looked up in a dictionary object: parse.ts). */
  listed: Map<JsonObject, readonly string[]> | undefined;
  listedValues: Map<JsonObject, readonly JsonValue[]> | undefined;

  /** The values of the members read of the open objects, at the places of their names in `names`. */
  private readonly values = STACKS.values;

  private object(holder: Known): JsonObject {
    this.open();
    if (this.next() === 0x7d) { this.i++; this.depth--; return {}; }
    const self = ++objects;
    const from = this.undo;
    const base = this.named;
    // Listed unless a name is an array index (Object.keys puts those first, in numeric order).
    let listable = true;
    // While every name is known, the members are kept in `names` and `values`, and the object built
    // when it ends, of a kind that fits their number (see built). From the first name not known
    // (escaped, long, or met when the table was full) it is built member by member, every name looked
    // up in it: "a" and "\u0061" are the same name.
    let o: JsonObject | undefined;
    let large = false;
    let previous: Known | undefined;
    for (let members = 1; ; members++) {
      if (this.next() !== 0x22 || members > MAX_MEMBERS || ++this.nodes > MAX_NODES) throw notPlain;
      const known = this.name(previous === undefined ? holder.first : previous.after);
      let name: string;
      if (known !== undefined) {
        name = known.name;
        if (TAKEN_BY[known.index] === self) throw notPlain; // given twice: parse.ts's
        this.held[this.undo++] = known.index;
        this.held[this.undo++] = TAKEN_BY[known.index]!;
        TAKEN_BY[known.index] = self;
        previous = known;
        if (known.arrayIndex) listable = false;
      } else {
        name = this.unknown;
        if (isArrayIndex(name)) listable = false;
        if (o === undefined) {
          large = holder.large;
          o = this.built(base, large);
        }
      }
      const at = this.named++;
      this.names[at] = name;
      if (this.next() !== 0x3a) throw notPlain;
      this.i++;
      const v = this.value(known ?? UNKNOWN);
      // Kept in `values` also once the object is built, for listedValues.
      this.values[at] = v;
      if (o !== undefined) {
        // A name given twice, or one Object.prototype answers (__proto__ among them; never a known name): parse.ts's.
        if (o[name] !== undefined || (large && name in Object.prototype)) throw notPlain;
        o[name] = v;
      }
      const c = this.next();
      this.i++;
      if (c === 0x2c) continue;
      if (c !== 0x7d) throw notPlain;
      for (let k = this.undo - 2; k >= from; k -= 2) TAKEN_BY[this.held[k]!] = this.held[k + 1]!;
      this.undo = from;
      if (o === undefined) {
        large = members > LISTED_FROM;
        o = this.built(base, large);
      }
      if (large) Object.setPrototypeOf(o, Object.prototype);
      holder.large = members > LISTED_FROM;
      if (listable && members > LISTED_FROM) {
        (this.listed ??= new Map()).set(o, this.names.slice(base, this.named));
        (this.listedValues ??= new Map()).set(o, this.values.slice(base, this.named));
      }
      if (this.named > this.top) this.top = this.named;
      this.named = base;
      this.depth--;
      return o;
    }
  }

  /** An object of the members kept from `base` on. One `large` starts as a dictionary without a
   *  prototype (it gets Object.prototype when it ends): V8 turns an object given that many names one
   *  by one into a dictionary anyway, and a name added to one without a prototype is not looked up on
   *  Object.prototype first. */
  private built(base: number, large: boolean): JsonObject {
    const o: JsonObject = large ? Object.create(null) as JsonObject : {};
    const { names, values } = this;
    for (let k = base; k < this.named; k++) o[names[k]!] = values[k]!;
    return o;
  }

  /** At a member name's opening quote, `after` the names tried first (those that followed the known
   *  name before it, or came first in an object of its holder): the name, when known (see Known), else
   *  undefined and the name in `unknown`. */
  private name(after: Known[]): Known | undefined {
    const t = this.text;
    const from = this.i;
    const view = this.view;
    for (let k = 0; k < after.length; k++) {
      const guess = after[k]!;
      if (view !== undefined ? spellsBytes(t, view, from, guess) : spells(t, from, guess.name)) {
        this.i = from + guess.name.length + 2;
        // A step towards the front on each hit, so that the usual names come first (a name seen once,
        // an optional member left out, stays behind them).
        if (k > 0) { after[k] = after[k - 1]!; after[k - 1] = guess; }
        return guess;
      }
    }
    const name = this.string();
    if (this.i - from > MAX_NAME) throw notPlain;
    // Only an ASCII name written without escapes stands for the same characters in the text and in
    // the Latin-1 view of any other; a name that Object.prototype answers is looked up in the object
    // (and so refused).
    if (this.wide || this.i - from !== name.length + 2 || name.length > MAX_KNOWN_LENGTH || name in Object.prototype) { this.unknown = name; return undefined; }
    let known = KNOWN.get(name);
    if (known === undefined) {
      if (KNOWN.size >= MAX_KNOWN) { this.unknown = name; return undefined; }
      known = newKnown(interned(name), KNOWN.size);
      KNOWN.set(known.name, known);
    }
    if (after.length >= MAX_AFTER) after[MAX_AFTER - 1] = known;
    else after.push(known);
    return known;
  }

  private array(holder: Known): JsonValue[] {
    this.open();
    const a: JsonValue[] = [];
    if (this.next() === 0x5d) { this.i++; this.depth--; return a; }
    for (;;) {
      if (a.length >= MAX_MEMBERS) throw notPlain;
      a.push(this.value(holder));
      const c = this.next();
      this.i++;
      if (c === 0x2c) continue;
      if (c === 0x5d) { this.depth--; return a; }
      throw notPlain;
    }
  }
}

/** The value of a plain JSON text (see the head of this file), or NOT_PLAIN. */
export function plainJson(text: string): JsonValue | typeof NOT_PLAIN {
  const read = plainJsonListed(text);
  return read === NOT_PLAIN ? read : read.value;
}

/** What plainJsonListed and plainJsonBytes give for a text they read. */
export type PlainRead = {
  readonly value: JsonValue;
  readonly listed?: ReadonlyMap<JsonObject, readonly string[]>;
  readonly listedValues?: ReadonlyMap<JsonObject, readonly JsonValue[]>;
} | typeof NOT_PLAIN;

/** plainJson, with the names of each object of more than LISTED_FROM members as Object.keys lists
 *  them, and their values in that order (an object with an array index among its names is left out). */
export function plainJsonListed(text: string): PlainRead {
  return read(text, undefined);
}

/** plainJsonListed of the UTF-8 text of `bytes`, read without decoding it first; NOT_PLAIN also when
 *  the bytes are no UTF-8, or begin with a byte-order mark (a decoder drops it; parse.ts's then). */
export function plainJsonBytes(bytes: Buffer): PlainRead {
  if (!isUtf8(bytes)) return NOT_PLAIN;
  return read(bytes.toString('latin1'), bytes);
}

function read(text: string, bytes: Buffer | undefined): PlainRead {
  if (KNOWN.size >= MAX_KNOWN) { KNOWN.clear(); ROOT = newKnown('', -1); UNKNOWN = newKnown('', -1); }
  const reader = new Reader(text, bytes);
  try {
    const value = reader.whole();
    return reader.listed ? { value, listed: reader.listed, listedValues: reader.listedValues! } : { value };
  } catch (e) {
    if (e === notPlain) return NOT_PLAIN;
    throw e;
  } finally {
    // Nothing of a text is held past its read (a text handed back midway may have used more).
    const used = reader.used();
    if (used > STACK_KEPT) STACKS = { held: [], names: [], values: [] };
    else {
      STACKS.names.fill('', 0, used);
      STACKS.values.fill(null, 0, used);
    }
  }
}
