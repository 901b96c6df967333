// What a HAR file's bytes must be before its entries are judged, checked as they arrive at the
// streaming reader (har.ts hands it every chunk before the parser; nothing but the few levels of
// brackets the harness reads is held). The quick reader (har-entries.ts) finds the same defects in
// what JSON.parse made of an entry, and hands the file over. A defect of the recording is refused in
// one line naming where it is, never judged as if the service had sent it:
// - bytes that are not UTF-8 (RFC 8259 8.1: JSON exchanged between systems MUST be UTF-8), which
//   decoding would turn into U+FFFD;
// - bytes that are not JSON (RFC 8259; json/syntax.ts), named at the first byte that makes them so,
//   before a structure misread from them is judged (a missing comma is no member absent);
// - a member the harness reads (READ below) named twice in one object. RFC 8259 4: names SHOULD be
//   unique, and with duplicates "the behavior of software ... is unpredictable" (JSON.parse and
//   stream-json keep the last, other readers the first): the recording does not say which status or
//   body the service sent, so neither is judged. Members the harness does not read may repeat.
// - a member the harness reads holding another JSON type than HAR 1.2 gives it (status a number,
//   headers an array of objects whose name and value are strings, content.text a string, …). The
//   file is refused rather than the entry left out: a reader that misreads one field may misread
//   others, and a run that judged the rest would look complete. null stands for an absent member;
// - a member the harness reads and HAR 1.2 requires (REQUIRED below), absent or null: an entry's
//   request and response, request.method, .url and .headers, response.status, .headers and .content,
//   each header's name and value, a param's name, and postData's text or params (HAR 1.2,
//   http://www.softwareishard.com/blog/har-12-spec/). Without it the entry is no whole exchange:
//   judged, an absent header list would blame the service for a Content-Type it may have sent; left
//   out, evidence would be lost while the verdict claimed the whole file (the project's rule: nothing
//   is lost silently, and every output states the exit code's verdict). One mechanism for every
//   defect: the file is refused, exit 2, naming the line and byte offset. What HAR 1.2 itself says
//   was not recorded stays judged as not recorded: status 0 (no answer), content without text.
//   Members the harness does not read (httpVersion, cookies, timings, …) are not its business.
import { JsonSyntax, stringDefect, UNEXPECTED, type StringState } from '../json/syntax.js';
import { cutAtEnd, Utf8Stream } from '../json/utf8.js';

/** A file that is not a HAR, in one line: which file, and where reading stopped. */
export class HarProblem extends Error {}

/** How deep an entry may nest (a request and its answer take a few levels), below the levels above
 *  one (the file's object, log, log.entries). Deeper, anywhere in the file, it is refused before the
 *  parser, which keeps a level per bracket, reads it. */
export const MAX_HAR_ENTRY_DEPTH = 64;
/** The deepest level anywhere in the file (its object is level 1). */
export const DEEPEST = MAX_HAR_ENTRY_DEPTH + 3;

type Kind = 'string' | 'number' | 'object' | 'array' | 'boolean' | 'null';
type Role = 'root' | 'log' | 'entries' | 'entry' | 'request' | 'response' | 'headers' | 'header' | 'postData' | 'params' | 'param' | 'content';
/** required: HAR 1.2 requires it and the exchange needs it (neither absent nor null); located: where
 *  its value starts is kept until its entry is judged (a defect only har.ts sees is named there). */
interface Read { readonly kind?: Kind; readonly role?: Role; readonly required?: true; readonly located?: true }

const STRING: Read = { kind: 'string' };
const NEEDED_STRING: Read = { kind: 'string', required: true };
/** The members the harness reads, per object: the JSON type HAR 1.2 gives each (null aside), and what
 *  the object or array it holds is. startedDateTime and time,
 *  though required, are only shown (no check judges them): absent, they are shown as unknown. */
const READ: Partial<Record<Role, Readonly<Record<string, Read>>>> = {
  root: { log: { kind: 'object', role: 'log', required: true } },
  log: { entries: { kind: 'array', role: 'entries', required: true } },
  entry: { startedDateTime: STRING, time: { kind: 'number' }, request: { kind: 'object', role: 'request', required: true }, response: { kind: 'object', role: 'response', required: true } },
  request: { method: NEEDED_STRING, url: NEEDED_STRING, headers: { kind: 'array', role: 'headers', required: true }, postData: { kind: 'object', role: 'postData' } },
  postData: { text: STRING, params: { kind: 'array', role: 'params' } },
  param: { name: NEEDED_STRING, value: STRING },
  header: { name: NEEDED_STRING, value: NEEDED_STRING },
  response: { status: { kind: 'number', required: true, located: true }, headers: { kind: 'array', role: 'headers', required: true }, content: { kind: 'object', role: 'content', required: true } },
  content: { text: { kind: 'string', located: true }, encoding: STRING },
};
/** The items of the arrays the harness reads (a null header or param is none). */
const ITEMS: Partial<Record<Role, Read>> = { entries: { kind: 'object', role: 'entry', required: true }, headers: { kind: 'object', role: 'header', required: true }, params: { kind: 'object', role: 'param', required: true } };
/** Members of which an object needs one, not null (HAR 1.2: postData's text and params are mutually exclusive). */
const ONE_OF: Partial<Record<Role, readonly string[]>> = { postData: ['text', 'params'] };
/** What an object of each role needs when it closes: its required members, and one of ONE_OF's. */
const NEEDS: Partial<Record<Role, { readonly all: readonly string[]; readonly one?: readonly string[] }>> = Object.fromEntries(
  (Object.keys(READ) as Role[]).flatMap((role) => {
    const all = Object.entries(READ[role]!).filter(([, r]) => r.required).map(([name]) => name);
    return all.length || ONE_OF[role] ? [[role, { all, ...(ONE_OF[role] ? { one: ONE_OF[role] } : {}) }]] : [];
  }),
);
const ARRAYS: ReadonlySet<Role> = new Set(['entries', 'headers', 'params']);

interface Frame {
  readonly role: Role;
  readonly array: boolean;
  /** Where it is: the frame holding it and its member's name or item's index (for a message only). */
  readonly parent?: Frame;
  readonly at?: string | number;
  /** The entry (1-based) the frame is in. */
  readonly entry?: number;
  /** Its level in the file (the file's object is 1). */
  readonly depth: number;
  /** The members the harness reads in it, or what its items are. */
  readonly names: Readonly<Record<string, Read>>;
  readonly item?: Read;
  /** 0: a name comes next; 1: a colon; 2: a value; 3: a comma or the end. */
  state: number;
  /** The member whose value comes next, when the harness reads it. */
  read?: string;
  items: number;
  /** The read names met so far (a handful per object), and those of them given as null. */
  seen: string[];
  nulls?: string[];
  /** What it must hold when it closes (NEEDS). */
  readonly needs?: (typeof NEEDS)[Role];
}
const KEY = 0, COLON = 1, VALUE = 2, AFTER = 3;

/** Longest name worth decoding: the longest read name, every character written as \uXXXX. */
const NAME_BYTES = 6 * 'startedDateTime'.length;
const Q = 0x22;
const BS = 0x5c;

const kindOf = (c: number): Kind | undefined =>
  c === Q ? 'string' : c === 0x7b ? 'object' : c === 0x5b ? 'array' : c === 0x2d || (c >= 0x30 && c <= 0x39) ? 'number'
    : c === 0x74 || c === 0x66 ? 'boolean' : c === 0x6e ? 'null' : undefined;
const article = (k: Kind) => (k === 'array' || k === 'object' ? 'an' : 'a');

/** A frame's path from its entry (or from the file's top, outside the entries), as a message names it. */
function pathOf(f: Frame | undefined): string {
  if (!f?.parent || f.role === 'entry') return '';
  const up = pathOf(f.parent);
  return typeof f.at === 'number' ? `${up}[${f.at}]` : up ? `${up}.${f.at}` : f.at!;
}
const memberPath = (f: Frame, name: string | number): string => {
  const up = pathOf(f);
  return typeof name === 'number' ? `${up}[${name}]` : up ? `${up}.${name}` : name;
};
/** How a message names a value before its type: an entry by its number, as every message names it;
 *  anything else by its path in its entry. */
const valueIs = (f: Frame, at: string | number): string =>
  (f.role === 'entries' ? `entry ${(at as number) + 1} is` : `${who(f)} has ${memberPath(f, at)} as`);
const who = (f: Frame): string => (f.entry !== undefined ? `entry ${f.entry}` : 'the file');
const frame = (role: Role, parent?: Frame, at?: string | number, entry?: number): Frame => ({
  role, array: ARRAYS.has(role), parent, at, entry, depth: parent ? parent.depth + 1 : 1, names: READ[role] ?? {}, item: ITEMS[role], state: ARRAYS.has(role) ? VALUE : KEY, items: 0, seen: [], needs: NEEDS[role],
});
export const RECORDING = 'a defect of the recording, not of the service';
/** A byte (or the end) that makes the file no JSON, by its kind (syntax.ts), not its text. */
const invalid = (kind: string) => `not valid JSON (${kind}; ${RECORDING})`;
const DEEPER = `nests deeper than ${MAX_HAR_ENTRY_DEPTH} levels, which no recording needs (refused so that reading it stays bounded)`;

/** Where a located value (`member`) starts: its chunk (held until its entry is judged), and the chunk's place. */
interface Located { readonly entry: number; readonly member: string; readonly chunk: Buffer; readonly at: number; readonly line: number; readonly offset: number }
const SEEN = 64;
const NOT_UTF8 = 'not UTF-8 (RFC 8259 8.1: JSON exchanged between systems must be)';
/** UTF-8's byte-order mark, which .NET writers (Fiddler's) put before a HAR: skipped at the file's
 *  start, as RFC 8259 8.1 lets a parser do (the accounts file's is too). */
const BOM = [0xef, 0xbb, 0xbf];
/** Compressed files, by the magic number they start with (gzip: RFC 1952 2.3.1; zip: PKWARE's
 *  APPNOTE 4.3.7; zstd: RFC 8878 3.1.1; xz: its file format 2.1.1.1; bzip2: "BZh"): named, not read
 *  as the JSON they are not. Not decompressed here: every place a refusal names would then be in
 *  bytes the user does not have. Each begins with a byte no JSON text begins with. */
const PACKED: readonly { readonly magic: Buffer; readonly message: string }[] = ([
  [[0x1f, 0x8b], 'gzip-compressed', 'gzip', 'decompress it first (gunzip -k)', 'gunzip -c'],
  [[0x50, 0x4b, 0x03, 0x04], 'a zip archive', 'zip', 'extract it first (unzip)', 'unzip -p'],
  [[0x28, 0xb5, 0x2f, 0xfd], 'zstd-compressed', 'zstd', 'decompress it first (zstd -d)', 'zstd -dc'],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], 'xz-compressed', 'xz', 'decompress it first (xz -dk)', 'xz -dc'],
  [[0x42, 0x5a, 0x68], 'bzip2-compressed', 'bzip2', 'decompress it first (bzip2 -dk)', 'bzip2 -dc'],
] as const).map(([magic, is, name, first, pipe]) => ({
  magic: Buffer.from(magic),
  message: `the file is ${is} (it starts with ${magic.map((b) => b.toString(16).padStart(2, '0')).join(' ')}, ${name}'s magic number), not JSON: ${first}, or pipe ${pipe} into --har - (standard input)`,
}));
/** Whether `head` (the file's first bytes) is a magic number's start, and which magic it is whole. */
const packedAs = (head: Buffer) => PACKED.find((p) => head.length >= p.magic.length && head.subarray(0, p.magic.length).equals(p.magic));
const mayBePacked = (head: Buffer) => PACKED.some((p) => head.length < p.magic.length && p.magic.subarray(0, head.length).equals(head));
/** A chunk, its place, and where its strings were at its start: a string's content is checked there
 *  only when the file is refused (a defect in it may lie before the one found, or be the parser's). */
interface Seen { readonly chunk: Buffer; readonly line: number; readonly offset: number; readonly state: StringState }
/** "line L, byte offset B" of byte `at` of a chunk (negative: before it) starting at `offset`, on `line`. */
function place(b: Buffer, at: number, line: number, offset: number): string {
  for (let nl = b.indexOf(10); nl >= 0 && nl < at; nl = b.indexOf(10, nl + 1)) line++;
  return `line ${line}, byte offset ${offset + at}`;
}

/** Checks a HAR file's bytes, chunk after chunk; each method throws HarProblem at the first defect. */
export class HarScan {
  private readonly utf8 = new Utf8Stream();
  private readonly syntax = new JsonSyntax();
  /** The last chunks, back to SEEN bytes before the last: a parser reads a few characters past a
   *  defect in a string before it refuses, in whatever chunks they came. */
  private readonly seen: Seen[] = [];
  private seenBytes = 0;
  private top: Frame | undefined;
  /** Levels of containers the harness does not read, open below the top frame. */
  private untracked = 0;
  private inString = false;
  private escaped = false;
  /** The name being read in a frame the harness reads: its text as read (escapes undone later), and
   *  where it starts in the file; undefined text: no read name (too long, or not ASCII). */
  private name: { text: string | undefined; at: number; escapes: boolean } | undefined;
  private offset = 0; // bytes before the chunk
  private line = 1; // the line the chunk starts on
  /** The file's own value has begun: what follows it is the parser's to refuse. */
  private begun = false;
  /** The file's first bytes while they may be a compressed file's magic number (PACKED). */
  private head: Buffer | undefined;
  /** Bytes of a byte-order mark read at the file's start. */
  private bom = 0;
  /** A syntax defect at a character the chunk ends inside: what fail() is given once it is whole. */
  private later: [Buffer, number, string, number, number] | undefined;
  /** The file's own value is a literal (null, true, false, a number): refused as such at the file's
   *  end, once its bytes are known to be one (`not json` is no null, `12x` no number). */
  private literalTop: [Buffer, number, string, number, number] | undefined;
  /** Located values (READ) of entries not yet judged, in the file's order. */
  private located: Located[] = [];
  /** Where each entry not yet judged begins (its opening brace), in the file's order. */
  private starts: Located[] = [];

  /** The next chunk of the file; returns how many of its first bytes are the file's byte-order mark,
   *  which the parser is not to read. */
  chunk(b: Buffer): number {
    // The file's first bytes, while they may be a magic number (standard input may give them one at a
    // time): held from the scan and the parser. Not one, they are no JSON from byte 0 either.
    if (this.offset === 0 && (this.head || (b.length && mayBePacked(b.subarray(0, 1))))) {
      const head = this.head ? Buffer.concat([this.head, b]) : b;
      this.head = undefined;
      const packed = packedAs(head);
      if (packed) this.fail(head, 0, packed.message);
      if (mayBePacked(head)) { this.head = head; return b.length; }
      this.take(head);
      return b.length;
    }
    return this.take(b);
  }

  /** A chunk, scanned. */
  private take(b: Buffer): number {
    // The first defect in the file's order, whichever chunks it is read in: the bytes before a bad one are scanned first.
    this.seen.push({ chunk: b, line: this.line, offset: this.offset, state: { inString: this.inString, escaped: this.escaped } });
    this.seenBytes += b.length;
    while (this.seenBytes - this.seen[0]!.chunk.length >= SEEN) this.seenBytes -= this.seen.shift()!.chunk.length;
    const bad = this.utf8.next(b);
    const later = this.later;
    const mark = this.leading(b, bad);
    if (!later) this.scan(b, mark, bad === undefined ? b.length : Math.max(0, bad));
    if (bad !== undefined && (!later || bad < 0)) this.fail(b, bad, NOT_UTF8);
    for (let nl = b.indexOf(10); nl >= 0; nl = b.indexOf(10, nl + 1)) this.line++;
    this.offset += b.length;
    if (this.later && this.utf8.end() === undefined) this.fail(...this.later);
    return mark;
  }

  /** The bytes at the start of `b` that go on the file's leading byte-order mark (in any chunks it
   *  comes in). `bad`: where the bytes stop being UTF-8. */
  private leading(b: Buffer, bad: number | undefined): number {
    let n = 0;
    while (this.bom === this.offset + n && this.bom < BOM.length && n < b.length) {
      if (b[n] !== BOM[this.bom]) {
        // A character begun as the mark is and another: no JSON from the file's first byte (not UTF-8 is said first).
        if (this.bom > 0 && (bad === undefined || bad > n)) this.fail(b, -this.offset, invalid(UNEXPECTED));
        break;
      }
      n++;
      this.bom++;
    }
    return n;
  }

  /** The file's end: a character it ends inside is no UTF-8 either. */
  end(): void {
    // A file shorter than the magic number it begins as: no JSON from byte 0.
    if (this.head) { const head = this.head; this.head = undefined; this.take(head); }
    const cut = this.utf8.end();
    if (cut !== undefined) this.fail(Buffer.alloc(0), -cut, `the file ends inside a character, ${NOT_UTF8}`);
    if (this.later) this.fail(...this.later);
    const bad = this.inString ? 'the file ends inside a string' : this.syntax.end();
    if (bad !== undefined) this.fail(Buffer.alloc(0), 0, invalid(bad));
    if (this.literalTop) this.fail(...this.literalTop);
  }

  /** Where the parser's refusal lies, when the scan passed it: in a string's content, in the last
   *  chunks. "line L, byte offset B: …", or undefined. */
  locate(): string | undefined {
    const s = this.stringDefect(undefined, 0);
    return s && `${place(s.seen.chunk, s.at, s.seen.line, s.seen.offset)}: ${invalid(s.kind)}`;
  }

  /** The first defect of a string's content in the last chunks, before byte `at` of `b` (none: their ends). */
  private stringDefect(b: Buffer | undefined, at: number): { seen: Seen; at: number; kind: string } | undefined {
    for (const seen of this.seen) {
      const found = stringDefect(seen.chunk, 0, seen.chunk === b ? Math.max(0, at) : seen.chunk.length, seen.state);
      if (found) return { seen, ...found };
      if (seen.chunk === b) break;
    }
    return undefined;
  }

  /** Where entry `entry` (1-based) has its located value `member` (response.content.text, response.status), if it has one. */
  where(entry: number, member = 'text'): string | undefined {
    const v = this.located.find((x) => x.entry === entry && x.member === member);
    return v && place(v.chunk, v.at, v.line, v.offset);
  }

  /** Where entry `entry` (1-based) begins, if it is not judged yet. */
  start(entry: number): string | undefined {
    const v = this.starts.find((x) => x.entry === entry);
    return v && place(v.chunk, v.at, v.line, v.offset);
  }

  /** Entries up to `entry` (1-based) are judged: their located values and starts, and the chunks they hold, go. */
  judged(entry: number): void {
    const after = (list: Located[]) => {
      let n = 0;
      while (n < list.length && list[n]!.entry <= entry) n++;
      return n ? list.slice(n) : list;
    };
    this.located = after(this.located);
    this.starts = after(this.starts);
  }

  /** Refuses the file, naming the line and byte offset of `at` (in `b`; negative: before it). */
  private fail(b: Buffer, at: number, what: string, line = this.line, offset = this.offset): never {
    const first = this.stringDefect(b, at);
    if (first) throw new HarProblem(`${place(first.seen.chunk, first.at, first.seen.line, first.seen.offset)}: ${invalid(first.kind)}`);
    throw new HarProblem(`${place(b, at, line, offset)}: ${what}`);
  }

  private scan(b: Buffer, from: number, end: number): void {
    let i = from;
    let nextQuote = -1;
    let nextSlash = -1;
    let top = this.top;
    let untracked = this.untracked;
    let inString = this.inString;
    let escaped = this.escaped;
    const syntax = this.syntax;
    try {
      while (i < end) {
        if (inString) {
          const name = this.name;
          if (name && name.text !== undefined) {
            // A name the harness may read: byte by byte (it is short).
            const c = b[i++]!;
            if (escaped) escaped = false;
            else if (c === BS) { escaped = true; name.escapes = true; } else if (c === Q) { inString = false; this.named(b, top!); continue; }
            name.text = c < 0x80 && name.text.length < NAME_BYTES ? name.text + String.fromCharCode(c) : undefined;
            continue;
          }
          // Any other string: skipped to its closing quote, a few bytes at a time (a header, a body of
          // escapes), then natively (a long stretch without a quote or an escape).
          if (escaped) { escaped = false; i++; continue; }
          let k = i;
          const near = Math.min(end, i + 64);
          while (k < near && b[k] !== Q && b[k] !== BS) k++;
          if (k === near && near < end) {
            if (nextQuote < k) { nextQuote = b.indexOf(Q, k); if (nextQuote < 0 || nextQuote > end) nextQuote = end; }
            if (nextSlash < k) { nextSlash = b.indexOf(BS, k); if (nextSlash < 0 || nextSlash > end) nextSlash = end; }
            k = Math.min(nextQuote, nextSlash);
          }
          i = k + 1;
          if (k >= end) i = end;
          else if (b[k] === BS) escaped = true;
          else { inString = false; if (name) this.named(b, top!); }
          continue;
        }
        const c = b[i++]!;
        // Syntax first (whitespace only ends a number or literal): what follows reads valid JSON only.
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) { if (syntax.scalar) { const bad = syntax.byte(c); if (bad !== undefined) this.fail(b, i - 1, invalid(bad)); } continue; }
        const bad = syntax.byte(c);
        if (bad !== undefined) {
          // A character cut by the chunk's end is named once it is known to be UTF-8 (not UTF-8 is said first).
          if (c >= 0x80 && i - 1 >= b.length - cutAtEnd(b)) { this.later = [b, i - 1, invalid(bad), this.line, this.offset]; break; }
          this.fail(b, i - 1, invalid(bad));
        }
        if (untracked) {
          if (c === Q) inString = true;
          // Levels the harness does not read are counted: past DEEPEST, the file is refused here.
          else if (c === 0x7b || c === 0x5b) { if (++untracked + (top ? top.depth : 0) > DEEPEST) this.fail(b, i - 1, `${top ? who(top) : 'the file'} ${DEEPER}`); }
          else if (c === 0x7d || c === 0x5d) untracked--;
          continue;
        }
        if (!top) {
          // The file's own value: only an object is read, any other refused.
          const kind = this.begun ? undefined : kindOf(c);
          if (kind) this.begun = true;
          if (kind && kind !== 'object') {
            const what = `the file is ${kind === 'null' ? 'null, where HAR 1.2 requires' : `${article(kind)} ${kind}, where HAR 1.2 has`} an object (${RECORDING})`;
            if (kind === 'string' || kind === 'array') this.fail(b, i - 1, what);
            this.literalTop = [b, i - 1, what, this.line, this.offset];
          }
          if (c === 0x7b) top = frame('root');
          else if (c === 0x5b) untracked++;
          else if (c === Q) inString = true;
          continue;
        }
        if (c === 0x7d || c === 0x5d) { if (top.needs) this.closed(b, i - 1, top); top = top.parent; continue; }
        if (c === 0x2c) { top.state = top.array ? VALUE : KEY; top.read = undefined; continue; }
        if (c === 0x3a) { if (top.state === COLON) top.state = VALUE; continue; }
        if (top.state !== VALUE) {
          if (c === Q) { inString = true; if (top.state === KEY) this.name = { text: '', at: this.offset + i - 1, escapes: false }; }
          continue;
        }
        // A value starts: of a member, or an item.
        top.state = AFTER;
        const read = top.array ? top.item : top.read !== undefined ? top.names[top.read] : undefined;
        const at = top.array ? top.items++ : top.read;
        if (c === Q) inString = true;
        if (!read) { if (c === 0x7b || c === 0x5b) untracked++; continue; }
        if (read.kind) {
          const kind = kindOf(c);
          if (kind === 'null') {
            if (read.required) this.fail(b, i - 1, `${valueIs(top, at!)} null, where HAR 1.2 requires ${article(read.kind)} ${read.kind} (${RECORDING})`);
            if (!top.array) (top.nulls ??= []).push(at as string);
          } else if (kind && kind !== read.kind) {
            this.fail(b, i - 1, `${valueIs(top, at!)} ${article(kind)} ${kind}, where HAR 1.2 has ${article(read.kind)} ${read.kind} (${RECORDING})`);
          }
          if (read.located && kind === read.kind) this.located.push({ entry: top.entry!, member: at as string, chunk: b, at: i - 1, line: this.line, offset: this.offset });
        }
        if (c !== 0x7b && c !== 0x5b) continue;
        const role = read.role;
        if (!role || ARRAYS.has(role) !== (c === 0x5b)) { untracked++; continue; }
        if (role === 'entry') this.starts.push({ entry: top.items, member: '', chunk: b, at: i - 1, line: this.line, offset: this.offset });
        top = frame(role, top, at, role === 'entry' ? top.items : top.entry);
      }
    } finally {
      this.top = top;
      this.untracked = untracked;
      this.inString = inString;
      this.escaped = escaped;
    }
  }

  /** An object closes (at `at` in `b`): a member it needs and lacks refuses the file. */
  private closed(b: Buffer, at: number, top: Frame): void {
    const given = (name: string) => top.seen.includes(name) && !top.nulls?.includes(name);
    const { all, one } = top.needs!;
    const missing = all.find((name) => !given(name));
    // Outside the entries (log, log.entries) the file is no HAR; inside, an exchange is not whole.
    if (missing !== undefined) this.fail(b, at, `${who(top)} has no ${memberPath(top, missing)}, which HAR 1.2 requires (${RECORDING}${top.entry === undefined ? '' : ': the exchange is not whole'})`);
    if (one && !one.some(given)) this.fail(b, at, `${who(top)} has neither ${one.map((name) => memberPath(top, name)).join(' nor ')}, one of which HAR 1.2 requires (${RECORDING}: the exchange is not whole)`);
  }

  /** A name ends: a read one is noted, a second time refused. */
  private named(b: Buffer, top: Frame): void {
    const { text, at, escapes } = this.name!;
    this.name = undefined;
    top.state = COLON;
    top.read = undefined;
    if (text === undefined) return;
    let name: string;
    try {
      name = escapes ? JSON.parse(`"${text}"`) as string : text;
    } catch { return; } // not JSON: the parser names it
    if (!Object.hasOwn(top.names, name)) return;
    if (top.seen.includes(name)) {
      this.fail(b, at - this.offset, `${who(top)} names ${memberPath(top, name)} twice (RFC 8259 4: which one a reader keeps is unpredictable, so the recording does not say what was sent)`);
    }
    top.seen.push(name);
    top.read = name;
  }
}

const typeOf = (v: unknown): Kind => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v as Kind);

/** Whether a parsed value in the place of `role` holds a read member (READ, ITEMS) of another JSON
 *  type, or lacks one it needs (NEEDS): the quick reader's check of an entry it parsed (it then
 *  hands the file to the streaming reader, whose scan names where). */
export function entryDefective(v: unknown, role: Role = 'entry'): boolean {
  const wrong = (x: unknown, read: Read | undefined): boolean => {
    if (!read) return false;
    if (x === null) return read.required === true;
    if (read.kind && typeOf(x) !== read.kind) return true;
    return read.role !== undefined && entryDefective(x, read.role);
  };
  if (Array.isArray(v)) return ARRAYS.has(role) && v.some((x) => wrong(x, ITEMS[role]));
  if (!v || typeof v !== 'object' || ARRAYS.has(role)) return false;
  const o = v as Record<string, unknown>;
  const names = READ[role] ?? {};
  for (const name in names) if (Object.hasOwn(o, name) && wrong(o[name], names[name])) return true;
  const needs = NEEDS[role];
  const given = (name: string) => Object.hasOwn(o, name) && o[name] !== null;
  return needs !== undefined && (!needs.all.every(given) || (needs.one !== undefined && !needs.one.some(given)));
}
