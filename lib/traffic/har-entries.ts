// The quick way through a HAR file: each entry of log.entries found by its bytes (strings skipped
// with indexOf, brackets counted) and read by JSON.parse, about five times the speed of the token
// stream (stream-json hands on a token per string chunk, per name, per bracket). It reads a plain
// file only: an entry larger than the body cap, headers past their bound, a name that could make the
// token stream pick differently (an escape, a dot, a repeat on the path log.entries, __proto__), any
// JSON error, and standard input are the streaming reader's (har.ts), which then reads the file from
// its start and skips the entries already handed on: every message and warning stays its own. So is
// a defect of the recording (har-scan.ts: bytes that are not UTF-8, a name given twice in an object of
// the entry, a read member of another type, or one HAR 1.2 requires absent), which the streaming
// reader's scan names by line and byte.
import { createReadStream } from 'node:fs';
import { Utf8Stream } from '../json/utf8.js';
import { DEEPEST, entryDefective, MAX_HAR_ENTRY_DEPTH } from './har-scan.js';

/** Headers kept per message (an entry's request, and its response): as many and as long as a live
 *  message may be. Node's HTTP parser keeps at most 2,000 headers of a message (maxHeadersCount), and
 *  the proxy reads at most 256 KiB of them (undici, sending, stops at 16 KiB); a recording is read to
 *  the larger of these, and what is past them is left out and named in a warning. */
export const MAX_HAR_HEADERS = 2000;
export const MAX_HAR_HEADER_BYTES = 256 * 1024;

/** Values an entry may hold (and how deep it may nest: har-scan.ts): a request and its answer, their
 *  headers, cookies and parameters come to thousands of values at a few levels. Past either the file is
 *  refused (har.ts), before the entry is built: assembled, each value costs some tens of bytes. */
export const MAX_HAR_ENTRY_VALUES = 1_000_000;
export { MAX_HAR_ENTRY_DEPTH };

/** The quick reader stops here; the streaming reader takes the file from its start. */
export class NeedsStreaming extends Error {}

/** Text outside the entries (log.creator, pages, comments) kept to check the file is JSON at its end. */
const SKELETON_BYTES = 1024 * 1024;

const ZERO = Buffer.from('0');
const Q = 0x22; // "
const BS = 0x5c; // \
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Characters of names and strings at every depth of a header item (what the streaming reader's
 *  bound counts); numbers, booleans and null count nothing. */
function textLength(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + textLength(x), 0);
  if (v && typeof v === 'object') return Object.entries(v).reduce((n, [k, x]) => n + k.length + textLength(x), 0);
  return 0;
}

/** Whether an entry's headers are within the bounds, so the streaming reader would drop none. */
function headersWithinBounds(entry: Record<string, unknown>): boolean {
  for (const side of ['request', 'response']) {
    const m = entry[side];
    if (!m || typeof m !== 'object' || Array.isArray(m)) continue;
    const h = (m as Record<string, unknown>).headers;
    if (!Array.isArray(h)) continue;
    if (h.length > MAX_HAR_HEADERS || textLength(h) > MAX_HAR_HEADER_BYTES) return false;
  }
  return true;
}

/** How many of request.headers and response.headers the entry has (as the token stream bounds them). */
function headerArrays(entry: Record<string, unknown>): number {
  let n = 0;
  for (const side of ['request', 'response']) {
    const m = entry[side];
    if (m && typeof m === 'object' && !Array.isArray(m) && Array.isArray((m as Record<string, unknown>).headers)) n++;
  }
  return n;
}

/** An own __proto__ member anywhere (JSON.parse keeps it as a member; the token stream's assembler
 *  would set a prototype). */
function hasProtoMember(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasProtoMember);
  if (v && typeof v === 'object') return Object.hasOwn(v, '__proto__') || Object.values(v).some(hasProtoMember);
  return false;
}

const count = (text: string, what: string): number => {
  let n = 0;
  for (let i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + what.length)) n++;
  return n;
};

/** Members of every object in a parsed value (JSON.parse keeps one of a name given twice). */
function members(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + members(x), 0);
  if (v && typeof v === 'object') return Object.values(v).reduce((n: number, x) => n + 1 + members(x), 0);
  return 0;
}

/** One entry's text (with `names`: the names its text gives, one per colon outside its strings) as
 *  an object, or NeedsStreaming for anything the streaming reader reads otherwise. */
function entryOf(text: string, names: number): Record<string, unknown> {
  let value: unknown;
  try { value = JSON.parse(text); } catch { throw new NeedsStreaming('not JSON'); }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new NeedsStreaming('not an object');
  const entry = value as Record<string, unknown>;
  // A letter or underscore written as an escape (no JSON writer does that) could spell either name below.
  if (text.includes('\\u00') && /\\u00(?:5f|[67][0-9a-f])/i.test(text)) throw new NeedsStreaming('an escaped letter');
  // A repeated member on the headers' path (request, response, headers): the token stream bounds
  // every copy, JSON.parse keeps the last. A copy that holds headers names them once more than the
  // headers arrays the entry keeps.
  if (count(text, '"headers"') > headerArrays(entry)) throw new NeedsStreaming('repeated member');
  if (text.includes('__proto__') && hasProtoMember(entry)) throw new NeedsStreaming('__proto__');
  if (members(entry) !== names) throw new NeedsStreaming('a name given twice in an object');
  if (entryDefective(entry)) throw new NeedsStreaming('a member of another type, or a required one absent');
  if (!headersWithinBounds(entry)) throw new NeedsStreaming('headers past the bound');
  return entry;
}

interface Frame {
  readonly array: boolean;
  /** The member whose value comes next (objects at the first two levels). */
  key?: string;
  expectKey: boolean;
  readonly role?: 'root' | 'log' | 'entries';
  readonly seen?: Set<string>;
}

/** The entries of log.entries in order, each parsed on its own; NeedsStreaming (after the entries
 *  before it) when the file is not one the quick reader reads as the streaming reader would. */
export async function* quickHarEntries(file: string, entryBytes: number): AsyncGenerator<{ key: number; value: Record<string, unknown> }> {
  const stack: Frame[] = [];
  // One buffer of its own, grown as needed: small Buffer.from copies would share (and hold) the pool's
  // slabs with the bodies of other entries for the whole run.
  let skeleton = Buffer.allocUnsafeSlow(64 * 1024);
  let skeletonBytes = 0;
  let found = 0;
  let key = 0;
  // Inside a string (outside an entry), and whether the next byte is escaped.
  let inString = false;
  let escaped = false;
  // The name being read at the first two levels: its bytes, while short.
  let name: number[] | undefined;
  // The entry being read: its pieces, bytes, bracket depth, and the string state within it.
  let entry: Buffer[] | undefined;
  let entrySize = 0;
  let depth = 0;
  // Commas and brackets of the entry so far: at least its values less one.
  let marks = 0;
  let colons = 0; // of the entry so far: its members' names
  const utf8 = new Utf8Stream();
  const keep = (b: Buffer) => {
    const size = skeletonBytes + b.length;
    if (size > SKELETON_BYTES) throw new NeedsStreaming('large text outside the entries');
    if (size > skeleton.length) {
      const grown = Buffer.allocUnsafeSlow(Math.min(SKELETON_BYTES, Math.max(size, skeleton.length * 2)));
      skeleton.copy(grown, 0, 0, skeletonBytes);
      skeleton = grown;
    }
    b.copy(skeleton, skeletonBytes);
    skeletonBytes = size;
  };
  const stream = createReadStream(file, { highWaterMark: 256 * 1024 });
  try {
    let first = true;
    for await (const read of stream as AsyncIterable<Buffer>) {
      // A byte-order mark at the start (a regular file's first chunk holds the whole of one) is skipped, as the scan skips it.
      const chunk = first && read[0] === 0xef && read[1] === 0xbb && read[2] === 0xbf ? read.subarray(3) : read;
      first = false;
      if (utf8.next(chunk) !== undefined) throw new NeedsStreaming('not UTF-8');
      const len = chunk.length;
      let pos = 0;
      let from = 0; // where the chunk's text outside an entry starts
      let nextQuote = -1;
      let nextSlash = -1;
      while (pos < len) {
        if (entry) {
          // Within an entry: strings skipped to their closing quote, brackets counted.
          const start = pos;
          while (pos < len) {
            if (inString) {
              if (escaped) { escaped = false; pos++; continue; }
              if (nextQuote < pos) { nextQuote = chunk.indexOf(Q, pos); if (nextQuote < 0) nextQuote = len; }
              if (nextSlash < pos) { nextSlash = chunk.indexOf(BS, pos); if (nextSlash < 0) nextSlash = len; }
              if (nextSlash < nextQuote) { pos = nextSlash + 1; escaped = true; } else if (nextQuote < len) { pos = nextQuote + 1; inString = false; } else pos = len;
              continue;
            }
            const c = chunk[pos++]!;
            if (c === Q) inString = true;
            else if (c === 0x7b || c === 0x5b) {
              // Past a bound: the streaming reader refuses it, naming the entry (JSON.parse would build it whole).
              if (++depth > MAX_HAR_ENTRY_DEPTH || ++marks > MAX_HAR_ENTRY_VALUES) throw new NeedsStreaming('an entry past the bounds');
            } else if (c === 0x2c) {
              if (++marks > MAX_HAR_ENTRY_VALUES) throw new NeedsStreaming('an entry past the bounds');
            } else if (c === 0x3a) colons++;
            else if ((c === 0x7d || c === 0x5d) && --depth === 0) break;
          }
          entrySize += pos - start;
          if (entrySize > entryBytes) throw new NeedsStreaming('an entry larger than the cap');
          entry.push(chunk.subarray(start, pos));
          if (depth > 0) continue; // the entry goes on in the next chunk
          const text = entry.length === 1 ? entry[0]!.toString('utf8') : Buffer.concat(entry).toString('utf8');
          entry = undefined;
          yield { key: key++, value: entryOf(text, colons) };
          from = pos;
          continue;
        }
        const c = chunk[pos]!;
        const top = stack[stack.length - 1];
        if (inString) {
          pos++;
          if (escaped) { escaped = false; if (name) name.push(c); continue; }
          if (c === BS) { escaped = true; if (name) throw new NeedsStreaming('an escape in a name on the path'); continue; }
          if (c !== Q) { if (name) { if (c === 0x2e) throw new NeedsStreaming('a dot in a name on the path'); if (name.length < 16) name.push(c); } continue; }
          inString = false;
          if (name && top) {
            const k = Buffer.from(name).toString('latin1');
            name = undefined;
            if (top.seen!.has(k) && (k === 'log' || k === 'entries')) throw new NeedsStreaming('a repeated member on the path');
            top.seen!.add(k);
            top.key = k;
          }
          continue;
        }
        if (isSpace(c)) { pos++; continue; }
        // A value starts where log.entries' value is expected: only an array is read here.
        const entriesNext = top?.role === 'log' && top.key === 'entries' && !top.expectKey && c !== 0x3a;
        if (entriesNext && c !== 0x5b) throw new NeedsStreaming('log.entries is not an array');
        if (top?.role === 'entries' && c !== 0x2c && c !== 0x5d) {
          if (c !== 0x7b) throw new NeedsStreaming('an entry that is not an object');
          keep(chunk.subarray(from, pos));
          keep(ZERO);
          entry = [];
          entrySize = 0;
          depth = 0;
          marks = 0;
          colons = 0;
          continue; // the entry's scan reads this brace
        }
        pos++;
        if (c === Q) {
          inString = true;
          if (top && !top.array && top.expectKey) { top.expectKey = false; if (top.role === 'root' || top.role === 'log') name = []; }
        } else if (c === 0x7b || c === 0x5b) {
          const role = !top ? (c === 0x7b ? 'root' : undefined)
            : top.role === 'root' && top.key === 'log' && c === 0x7b ? 'log'
              : entriesNext ? 'entries' : undefined;
          if (role === 'entries') { if (found++) throw new NeedsStreaming('a second log.entries'); }
          // Outside the entries too (log.pages, …): the streaming reader's scan refuses it.
          if (stack.length >= DEEPEST) throw new NeedsStreaming('nesting past the bound');
          stack.push({ array: c === 0x5b, expectKey: c === 0x7b, ...(role ? { role } : {}), ...(role === 'root' || role === 'log' ? { seen: new Set<string>() } : {}) });
          if (top) top.key = undefined;
        } else if (c === 0x7d || c === 0x5d) {
          stack.pop();
        } else if (c === 0x2c) {
          if (top && !top.array) { top.expectKey = true; top.key = undefined; }
        } else if (c !== 0x3a && top && !top.array) {
          top.key = undefined; // a literal or number ends the member
        }
      }
      if (!entry) keep(chunk.subarray(from, len));
    }
  } catch (e) {
    if (e instanceof NeedsStreaming) throw e;
    throw new NeedsStreaming('a read error'); // the streaming reader meets it too and names it
  } finally {
    stream.destroy();
  }
  if (found !== 1 || entry || inString || utf8.end() !== undefined) throw new NeedsStreaming('no single log.entries');
  // Every entry was JSON on its own; the rest of the file must be too.
  try { JSON.parse(skeleton.toString('utf8', 0, skeletonBytes)); } catch { throw new NeedsStreaming('not JSON'); }
}
