// Recorded traffic: the entries of a HAR file (HTTP Archive 1.2, as browsers, proxies and HTTP
// clients write it) as exchanges, read as a stream (stream-json: a recording of gigabytes is never
// held whole; one entry at a time is). Nothing is sent: each entry is judged as it was recorded, by
// the checks its kind binds, like any other exchange. A HAR's bodies are already decoded: an answer
// keeps its Content-Encoding and says its recorder undid it (recorderDecodedAnswer), so the checks
// read it as a probe's of the same answer; an entry whose answer or body was not recorded says so,
// and the checks that need it skip with that reason instead of failing on nothing.
// A defect of the file itself (not UTF-8, a read member named twice or of another type, or one HAR
// 1.2 requires absent: har-scan.ts) refuses it: what the recording says is then unknown, and nothing
// of it is blamed on the service. So every entry read is made into a whole exchange: none is left out.
import { createReadStream, statSync } from 'node:fs';
import { addAbortSignal, type Readable } from 'node:stream';
import type { chainUnchecked, many, none } from 'stream-chain';
import type { parser } from 'stream-json';
import type { pick } from 'stream-json/filters/pick.js';
import type { streamArray } from 'stream-json/streamers/stream-array.js';
import { acceptEncodingOf, appliedCodings, decodedAnswer, recorderDecodedAnswer } from '../http/content-coding.js';
import { bodyPastCap, exchangeHeaders, type Exchange, type RawHeaders } from '../http/exchange.js';
import { detachedCopy } from '../detached.js';
import { withThousands } from '../digits.js';
import { LONE_SURROGATE, loneSurrogateAt } from '../json/utf8.js';
import { HarProblem, HarScan, RECORDING } from './har-scan.js';
import { MAX_HAR_ENTRY_VALUES, MAX_HAR_HEADER_BYTES, MAX_HAR_HEADERS, NeedsStreaming, quickHarEntries } from './har-entries.js';

export { HarProblem } from './har-scan.js';

/** A defect of one entry's value that the scan cannot see (it skips a body's bytes, and reads no
 *  number's value): text marked base64 that is not, a status no response has. Named where the
 *  streaming reader's scan found the value (`member`: text or status). */
class EntryDefect extends HarProblem {
  constructor(message: string, readonly member: 'text' | 'status') { super(message); }
}

/** Base64 (RFC 4648 4; line breaks allowed), checked without a pattern that loops per character
 *  group: a body's text is megabytes long. */
function isBase64(text: string): boolean {
  const t = text.replace(/\s+/g, '');
  return t.length % 4 === 0 && !/[^A-Za-z0-9+/=]/.test(t) && !/=[^=]/.test(t) && !/={3}/.test(t);
}

/** Polly.JS's recording of a content-coded answer (its node-http adapter, getBodyFromChunks): the
 *  chunks as received, still coded, each in base64, as a JSON array under encoding "base64". No base64
 *  text starts with "[", so no other text reads so. Undefined for any other text. */
function pollyChunks(text: string): Buffer | undefined {
  if (!text.startsWith('[')) return undefined;
  let chunks: unknown;
  try { chunks = JSON.parse(text); } catch { return undefined; }
  if (!Array.isArray(chunks) || !chunks.every((c): c is string => typeof c === 'string' && isBase64(c))) return undefined;
  return Buffer.concat(chunks.map((c) => Buffer.from(c, 'base64')));
}

interface HarHeader { readonly name?: unknown; readonly value?: unknown }
interface HarEntry {
  readonly startedDateTime?: unknown;
  readonly time?: unknown;
  readonly request?: { readonly method?: unknown; readonly url?: unknown; readonly headers?: unknown; readonly postData?: { readonly text?: unknown; readonly params?: unknown } };
  readonly response?: { readonly status?: unknown; readonly statusText?: unknown; readonly headers?: unknown; readonly content?: { readonly text?: unknown; readonly encoding?: unknown } };
}

/** HAR headers (a list, names in any case, repeats) as the exchange keeps them. */
function headersOf(list: unknown): Record<string, string> {
  if (!Array.isArray(list)) return {};
  return exchangeHeaders((list as HarHeader[]).flatMap((h) => (typeof h?.name === 'string' && typeof h.value === 'string'
    // HTTP/2 pseudo-headers (:authority, :path) are how a browser records them, not headers of the message.
    && !h.name.startsWith(':') ? [[h.name, h.value] as const] : [])));
}

/** The request body a HAR recorded: its text, or (HAR 1.2 allows either) its form parameters, sent
 *  URL-encoded as a form is; undefined when there is none; TOO_LONG when it, or one of its
 *  parameters, was longer than the cap (a form without that parameter is not the form sent). */
function postedBody(postData: { readonly text?: unknown; readonly params?: unknown } | undefined): string | undefined {
  if (typeof postData?.text === 'string') return postData.text;
  if (!Array.isArray(postData?.params)) return undefined;
  const params = postData.params as { name?: unknown; value?: unknown }[];
  if (params.some((p) => p?.name === TOO_LONG || p?.value === TOO_LONG)) return TOO_LONG;
  return params
    .filter((p) => typeof p?.name === 'string')
    .map((p) => `${formEncoded(p.name as string)}=${formEncoded(typeof p.value === 'string' ? p.value : '')}`).join('&');
}

const LONE_PART = new RegExp(`(${LONE_SURROGATE.source})`);
/** encodeURIComponent, a lone surrogate (which it throws on) kept as it is: the body then names no
 *  bytes, and exchangeOfEntry says so. */
const formEncoded = (s: string): string => s.split(LONE_PART).map((part, i) => (i % 2 ? part : encodeURIComponent(part))).join('');

/** One entry as an exchange. Both readers refuse an entry without method or URL first (har-scan.ts). */
export function exchangeOfEntry(entry: HarEntry, index: number, maxBodyBytes: number, idPrefix = 'har'): Exchange {
  const req = entry.request;
  if (typeof req?.method !== 'string' || typeof req.url !== 'string') throw new HarProblem(`entry ${index + 1} has no request.method and request.url, which HAR 1.2 requires`);
  // Read as the cap's mark, not as written: no request to judge or name (it had been counted as
  // another service's, named by the mark).
  for (const [name, value] of [['method', req.method], ['url', req.url]] as const) {
    if (value === TOO_LONG) throw new HarProblem(`entry ${index + 1}'s request.${name} is longer than the ${withThousands(stringCap(maxBodyBytes))} characters a recorded string may hold (the body cap, --max-body-mib, in base64): it cannot be judged`);
  }
  const posted = postedBody(req.postData);
  // A request body past the cap is left out, as the proxy leaves it out: its checks skip. Copies of
  // the reader's strings: they are views of a chunk of the file, held as long as an example is.
  const headers = headersOf(req.headers);
  // No postData where a Content-Length says a body was sent, or a Transfer-Encoding (its chunks, the
  // last one at least, were sent): not recorded, not sent without one (a chunked head alone waits).
  const unrecorded = posted === undefined && (/^\s*0*[1-9]\d*\s*$/.test(headers['content-length'] ?? '') || headers['transfer-encoding'] !== undefined);
  // A form recorded as its parameters alone: the body is rebuilt from them, and a replay says so.
  const rebuilt = posted !== undefined && posted !== TOO_LONG && typeof req.postData?.text !== 'string';
  // A text whose UTF-8 is of another length than the Content-Length recorded is not the bytes sent
  // (its recorder re-encoded or cut it): not replayed, saying why. Sent with that length, the target
  // waits for bytes or cuts the body; sent with its own, as a rebuilt form is, it is a body known to
  // differ passed off as maybe the same.
  const announced = /^\s*\d+\s*$/.test(headers['content-length'] ?? '') ? Number(headers['content-length']) : undefined;
  // A lone surrogate names no bytes (RFC 8259 8.2; UTF-8 encodes scalar values only): what was sent
  // is not known, so the text is kept as recorded, judged by no check that reads it, never replayed.
  const lone = posted !== undefined && posted !== TOO_LONG ? loneSurrogateAt(posted) : -1;
  const otherLength = lone < 0 && posted !== undefined && posted !== TOO_LONG && !rebuilt && announced !== undefined && announced !== Buffer.byteLength(posted) ? announced : undefined;
  // The recording's header lists are kept too, as recorded (names as spelled, in order, repeats
  // apart): what the report shows.
  const request = detachedCopy({ method: req.method, url: req.url, headers, ...(Array.isArray(req.headers) ? { rawHeaders: req.headers as RawHeaders } : {}), ...(posted === TOO_LONG ? { bodyLeftOut: true as const } : posted !== undefined ? { body: posted, ...(rebuilt ? { bodyRebuilt: true as const } : {}), ...(otherLength !== undefined ? { otherLength } : {}), ...(lone >= 0 ? { loneSurrogateAt: lone } : {}) } : unrecorded ? { bodyNotRecorded: true as const } : {}) });
  let path = request.url;
  try { const u = new URL(request.url); path = `${u.pathname}${u.search}`; } catch { /* kept as written */ }
  const base = {
    id: `${idPrefix}.${index + 1}`,
    title: `${request.method} ${path} (entry ${index + 1})`,
    origin: { source: 'har', vouched: false } as const,
    request,
    startedAt: typeof entry.startedDateTime === 'string' ? detachedCopy(entry.startedDateTime) : new Date(0).toISOString(),
    durationMs: typeof entry.time === 'number' && entry.time >= 0 ? Math.round(entry.time) : 0,
  };
  const res = entry.response;
  // A status no response can carry (a status line holds three digits, RFC 9112 4): the recording's own
  // fault, no finding about the service.
  if (typeof res?.status === 'number' && res.status > 0 && !(Number.isInteger(res.status) && res.status >= 100 && res.status <= 999)) {
    throw new EntryDefect(`entry ${index + 1} has response.status ${res.status}, which no response has (a status is three digits, RFC 9112 4; ${RECORDING})`, 'status');
  }
  // Status 0: the request was recorded, its answer not (blocked, cancelled, still pending).
  if (typeof res?.status !== 'number' || res.status <= 0) return { ...base, error: { kind: 'not-recorded', message: 'no response recorded in the HAR' } };
  // The status line and header fields are recorded as they came whatever the body is: an answer
  // whose body is not recorded as sent keeps them for the checks that read only those (side 'head').
  const received = detachedCopy({ headers: headersOf(res.headers), reason: typeof res.statusText === 'string' ? res.statusText : undefined, raw: Array.isArray(res.headers) ? res.headers as RawHeaders : undefined });
  const head: Pick<Exchange, 'answerHead'> = { answerHead: { status: res.status, headers: received.headers, ...(received.reason !== undefined ? { reason: received.reason } : {}), ...(received.raw ? { rawHeaders: received.raw } : {}) } };
  const text = res.content?.text;
  if (typeof text !== 'string') return { ...base, ...head, error: { kind: 'not-recorded', message: 'no response body recorded in the HAR' } };
  // A body past the cap is not kept; its head is (the checks of the head judge it).
  const codings = appliedCodings(received.headers['content-encoding']);
  const pastCap = () => ({ ...base, ...head, error: bodyPastCap(maxBodyBytes, codings.length ? ` once decoded from ${codings.join(', ')}` : '') });
  if (text === TOO_LONG) return pastCap();
  // Polly.JS's coded answer: the bytes received, decoded as a probe decodes them (the codings the
  // request offered; RFC 9110 8.4), not as a recorder's text already decoded.
  const polly = res.content?.encoding === 'base64' ? pollyChunks(text) : undefined;
  if (polly) {
    // (Past the cap as received: not "once decoded", as pastCap says of a recorder's decoded text.)
    if (polly.length > maxBodyBytes) return { ...base, ...head, error: bodyPastCap(maxBodyBytes) };
    const answer = decodedAnswer(res.status, received.headers, polly, received.reason, received.raw, acceptEncodingOf(request.headers), maxBodyBytes);
    return 'pastCapHow' in answer ? { ...base, ...head, error: bodyPastCap(maxBodyBytes, answer.pastCapHow) } : { ...base, response: answer };
  }
  // A recording's own fault is no finding about the service: text that is not base64 is refused.
  if (res.content?.encoding === 'base64' && !isBase64(text)) throw new EntryDefect(`entry ${index + 1} has response.content.text not in base64, where response.content.encoding says base64 (${RECORDING})`, 'text');
  // Text with a lone surrogate names no bytes (as a request's): the answer is not recorded as sent.
  const loneAnswered = res.content?.encoding === 'base64' ? -1 : loneSurrogateAt(text);
  if (loneAnswered >= 0) return { ...base, ...head, error: { kind: 'not-recorded', message: `the response body recorded holds a lone surrogate at character ${loneAnswered}, which names no bytes: what was answered is not known` } };
  const body = res.content?.encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  if (body.length > maxBodyBytes) return pastCap();
  return { ...base, response: recorderDecodedAnswer(res.status, received.headers, body, received.reason, received.raw) };
}

/** stream-json and stream-chain, loaded for the first file the quick reader (har-entries.ts) hands
 *  on: a run that reads no such file starts without them (about 25 ms of CPU). */
interface Streaming {
  readonly chainUnchecked: typeof chainUnchecked; readonly many: typeof many; readonly none: typeof none;
  readonly parser: typeof parser; readonly pick: typeof pick; readonly streamArray: typeof streamArray;
}
async function streaming(): Promise<Streaming> {
  const [chainModule, json, pickModule, arrayModule] = await Promise.all([
    import('stream-chain'), import('stream-json'), import('stream-json/filters/pick.js'), import('stream-json/streamers/stream-array.js'),
  ]);
  return { chainUnchecked: chainModule.chainUnchecked, many: chainModule.many, none: chainModule.none, parser: json.parser, pick: pickModule.pick, streamArray: arrayModule.streamArray };
}

/** log.entries by its path, not by a name joined with dots (stream-json's string filter): a top-level
 *  member named "log.entries" matched that, and its items were judged as the recording's entries. */
const ENTRIES = (stack: readonly (string | number | null)[]): boolean => stack.length === 2 && stack[0] === 'log' && stack[1] === 'entries';

/** What a string too long to keep becomes: the reader never holds more of it than the cap, and an
 *  entry whose body was that long is judged as too large (a HAR's strings are bodies, in practice). */
const TOO_LONG = '\uE000conformance: a string longer than the body cap\uE000';
/** The characters of a recorded string kept at most: a body of the cap, written in base64. */
const stringCap = (maxBodyBytes: number): number => Math.ceil((maxBodyBytes * 4) / 3) + 4;

/** A stage of the token stream that packs each string, member name and number itself, keeping at most
 *  `cap` characters of it: one entry holding a body (or a name, or a number) of hundreds of megabytes
 *  costs the cap, not its size (the parser streams them in chunks; stream-json's own packing would
 *  assemble them whole). A name past the cap becomes TOO_LONG like a value; a number past it, a string. */
function cappedStrings(cap: number, none: Streaming['none']): (token: parser.Token) => parser.Token | typeof none {
  let chunks: string[] = [];
  let size = 0;
  let over = false;
  const start = (): typeof none => { chunks = []; size = 0; over = false; return none; };
  const chunk = (token: parser.Token): typeof none => {
    if (over) return none;
    const text = String((token as { value?: unknown }).value);
    if (size + text.length > cap) { over = true; chunks = []; return none; }
    chunks.push(text);
    size += text.length;
    return none;
  };
  const end = () => { const value = over ? TOO_LONG : chunks.join(''); chunks = []; return value; };
  return (token) => {
    switch (token.name) {
      case 'startString': case 'startKey': case 'startNumber': return start();
      case 'stringChunk': case 'numberChunk': return chunk(token);
      case 'endString': return { name: 'stringValue', value: end() };
      case 'endKey': return { name: 'keyValue', value: end() };
      case 'endNumber': { const value = end(); return value === TOO_LONG ? { name: 'stringValue', value } : { name: 'numberValue', value }; }
      default: return token;
    }
  };
}

export { MAX_HAR_ENTRY_DEPTH, MAX_HAR_ENTRY_VALUES, MAX_HAR_HEADER_BYTES, MAX_HAR_HEADERS } from './har-entries.js';

/** Headers of one entry left out by boundedHeaders, per message. */
export interface DroppedHeaders { request: number; response: number }

/** A stage after cappedStrings that keeps, of each log.entries[i].request.headers and
 *  .response.headers array, the first MAX_HAR_HEADERS items within MAX_HAR_HEADER_BYTES of names
 *  and values, and drops every later item before it is assembled (10^6 headers cost what 2,000 do).
 *  What it dropped is noted per entry index in `dropped`. */
function boundedHeaders(dropped: Map<number, DroppedHeaders>, { many, none }: Pick<Streaming, 'many' | 'none'>): (token: parser.Token) => parser.Token | typeof none | ReturnType<typeof many> {
  interface Frame { array: boolean; key?: string; items: number; headers?: { side: 'request' | 'response'; entry: number; kept: number; bytes: number; full: boolean } }
  const stack: Frame[] = [];
  // The item of a headers array being read: its tokens held until it ends, or dropped.
  let item: { frame: Frame; depth: number; tokens: parser.Token[]; bytes: number; keep: boolean } | undefined;
  const note = (h: NonNullable<Frame['headers']>) => {
    const d = dropped.get(h.entry) ?? { request: 0, response: 0 };
    d[h.side]++;
    dropped.set(h.entry, d);
  };
  const isHeaders = (): Frame['headers'] => {
    const [root, log, entries, entry, message] = stack;
    if (stack.length !== 5 || !root || root.array || root.key !== 'log' || !log || log.array || log.key !== 'entries' || !entries?.array) return undefined;
    if (!entry || entry.array || !message || message.array || message.key !== 'headers' || (entry.key !== 'request' && entry.key !== 'response')) return undefined;
    return { side: entry.key, entry: entries.items - 1, kept: 0, bytes: 0, full: false };
  };
  return (token) => {
    const opens = token.name === 'startObject' || token.name === 'startArray';
    const closes = token.name === 'endObject' || token.name === 'endArray';
    const top = stack[stack.length - 1];
    // A value starts inside an array: count it (an entry's index, a header's place).
    if (top?.array && !closes && token.name !== 'keyValue') {
      top.items++;
      if (top.headers && !item) {
        item = { frame: top, depth: stack.length, tokens: [], bytes: 0, keep: !top.headers.full && top.headers.kept < MAX_HAR_HEADERS };
        if (!item.keep) { top.headers.full = true; note(top.headers); }
      }
    }
    if (opens) stack.push({ array: token.name === 'startArray', items: 0, ...(token.name === 'startArray' ? { headers: isHeaders() } : {}) });
    else if (closes) stack.pop();
    else if (token.name === 'keyValue' && top) top.key = String(token.value);
    if (!item) return token;
    // Inside a header item: hold it, or drop it.
    const held = item;
    if (held.keep) {
      // Every token held counts, a string by its length, any other as one: an item of a million numbers is no header.
      held.bytes += token.name === 'keyValue' || token.name === 'stringValue' ? String(token.value).length : 1;
      const h = held.frame.headers!;
      if (h.bytes + held.bytes > MAX_HAR_HEADER_BYTES) { held.keep = false; held.tokens = []; h.full = true; note(h); } else held.tokens.push(token);
    }
    if (stack.length > held.depth) return none; // the item goes on
    item = undefined;
    if (!held.keep) return none;
    const h = held.frame.headers!;
    h.kept++;
    h.bytes += held.bytes;
    return many(held.tokens);
  };
}

/** Levels above an entry: the file's object, log, log.entries. */
const ABOVE_ENTRY = 3;

/** A stage after boundedHeaders that refuses a file whose entry holds more than MAX_HAR_ENTRY_VALUES
 *  values (one nesting too deep, the scan refuses before the parser reads it: har-scan.ts). */
function boundedEntries(startOf: (entry: number) => string | undefined): (token: parser.Token) => parser.Token {
  let depth = 0;
  let entries = 0; // entries begun
  let values = 0; // values of the entry being read
  let inEntries = false; // log.entries is the array at depth ABOVE_ENTRY
  const path: (string | undefined)[] = [];
  let key: string | undefined;
  return (token) => {
    const name = token.name;
    if (name === 'keyValue') { key = String(token.value); return token; }
    const opens = name === 'startObject' || name === 'startArray';
    const isValue = opens || name === 'stringValue' || name === 'numberValue' || name === 'trueValue' || name === 'falseValue' || name === 'nullValue';
    if (isValue && inEntries && depth >= ABOVE_ENTRY) {
      if (depth === ABOVE_ENTRY) { entries++; values = 0; }
      if (++values > MAX_HAR_ENTRY_VALUES) {
        const at = startOf(entries);
        throw new HarProblem(`${at ? `${at}: entry ${entries}, which begins here,` : `entry ${entries}`} holds more than ${withThousands(MAX_HAR_ENTRY_VALUES)} values, which no recorded exchange needs (refused so that reading it stays bounded)`);
      }
    }
    if (opens) {
      path.push(key);
      key = undefined;
      if (++depth === ABOVE_ENTRY && name === 'startArray' && path[1] === 'log' && path[2] === 'entries') inEntries = true;
    } else if (name === 'endObject' || name === 'endArray') {
      if (depth === ABOVE_ENTRY) inEntries = false;
      depth--;
      path.pop();
    } else key = undefined;
    return token;
  };
}

const droppedWarning = (file: string, id: string, key: number, d: DroppedHeaders): string =>
  `${file} entry ${key + 1} (${id}): ${[d.request ? `${d.request} request header${d.request === 1 ? '' : 's'}` : '', d.response ? `${d.response} response header${d.response === 1 ? '' : 's'}` : ''].filter(Boolean).join(' and ')} left out `
  + `(a message is read to ${withThousands(MAX_HAR_HEADERS)} headers and ${MAX_HAR_HEADER_BYTES / 1024} KiB of them, as a live one is bounded)`;

/** The warnings of what was left out of a run's entries: the first few named, the rest counted. */
export class LeftOut {
  static readonly NAMED = 10;
  private readonly named: string[] = [];
  private more = 0;
  readonly add = (message: string): void => { if (this.named.length < LeftOut.NAMED) this.named.push(message); else this.more++; };
  warnings(): string[] {
    return [...this.named, ...(this.more ? [`${this.more} more entr${this.more === 1 ? 'y' : 'ies'} had headers left out`] : [])];
  }
}

/** How a file is named in a message: "-" is standard input. */
export const harName = (file: string) => (file === '-' ? 'standard input' : file);

/** Every entry of a HAR file ("-": standard input), in order, as exchanges, their ids
 *  "<idPrefix>.<entry>". `warn` hears of what was left out of an entry (headers past the bound),
 *  naming the entry. `stop` aborted, a streamed source is read no
 *  further (standard input may never end by itself) and the reading fails. */
export async function* harExchanges(file: string, maxBodyBytes: number, idPrefix = 'har', warn: (message: string) => void = () => undefined, stop?: AbortSignal): AsyncGenerator<Exchange> {
  let index = -1;
  const dropped = new Map<number, DroppedHeaders>();
  // Strings, names and numbers streamed and packed again by cappedStrings, at a cap above any body
  // the run keeps (a base64 text is 4/3 of its bytes; UTF-8 text has no more characters than bytes).
  const cap = stringCap(maxBodyBytes);
  // Bytes handed to the parser, and where the chunk it is reading starts: a syntax error lies in it.
  let read = 0;
  let chunkStart = 0;
  // The streaming reader's bytes checked as they come (har-scan.ts); the quick reader hands it a file it finds a defect in.
  const scan = new HarScan();
  let ended = false; // the streaming reader has had the file's last byte
  const counted = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    chunkStart = read;
    read += bytes.length;
    // A byte-order mark at the file's start is the scan's to skip: the parser would refuse it.
    const mark = scan.chunk(bytes);
    return mark ? bytes.subarray(mark) : chunk;
  };
  // A file is read the quick way (har-entries.ts) while it can be; where it cannot, the streaming
  // reader reads it from its start and skips the entries already judged.
  let skip = 0;
  // `quick`: read by the quick reader, which hands the streaming reader an entry with a defect only here seen (EntryDefect).
  const entry = (key: number, value: HarEntry, quick: boolean): Exchange => {
    index = key;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new HarProblem(`entry ${key + 1} is not an object`);
    const left = dropped.get(key);
    if (left) { dropped.delete(key); warn(droppedWarning(harName(file), `${idPrefix}.${key + 1}`, key, left)); }
    try {
      return exchangeOfEntry(value, key, maxBodyBytes, idPrefix);
    } catch (e) {
      if (!(e instanceof EntryDefect)) throw e;
      if (quick) throw new NeedsStreaming(e.member === 'text' ? 'text marked base64 that is not' : 'a status no response has');
      const at = scan.where(key + 1, e.member);
      throw new HarProblem(at ? `${at}: ${e.message}` : e.message);
    } finally {
      scan.judged(key + 1);
    }
  };
  let pipeline: ReturnType<typeof chainUnchecked> | undefined;
  // A pipe (a FIFO, <(…)) cannot be read again from its start, as the streaming reader may need to:
  // it is read as standard input is, once.
  if (file !== '-' && statSync(file, { throwIfNoEntry: false })?.isFile() === false) {
    throw new HarProblem(`${file} is not a regular file: a HAR file may be read twice (quickly, then as a stream from its start); give a pipe as --har - (standard input)`);
  }
  try {
    let done = false;
    if (file !== '-') {
      try {
        for await (const { key, value } of quickHarEntries(file, cap)) {
          const ex = entry(key, value, true);
          skip = key + 1;
          yield ex;
        }
        done = true;
      } catch (e) {
        if (!(e instanceof NeedsStreaming)) throw e;
      }
    }
    if (!done) {
      const stream = await streaming();
      const { parser, pick, streamArray } = stream;
      const read: Readable = file === '-' ? process.stdin : createReadStream(file);
      const source = stop ? addAbortSignal(stop, read) : read;
      read.once('end', () => { ended = true; });
      // Unchecked: boundedHeaders hands on several tokens at once (many), which chain's types do not follow.
      pipeline = stream.chainUnchecked([source, counted, parser({ packKeys: false, packNumbers: false, packStrings: false, streamKeys: true, streamNumbers: true, streamStrings: true }), cappedStrings(cap, stream.none), boundedHeaders(dropped, stream), boundedEntries((n) => scan.start(n)), pick({ filter: ENTRIES }), streamArray()]);
      for await (const { key, value } of pipeline as AsyncIterable<{ key: number; value: HarEntry }>) {
        if (key < skip) { index = key; dropped.delete(key); scan.judged(key + 1); continue; }
        yield entry(key, value, false);
      }
      scan.end();
    }
  } catch (e) {
    if (e instanceof HarProblem) throw new HarProblem(`${harName(file)} is not a HAR file: ${e.message}`);
    const err = e as NodeJS.ErrnoException;
    // The parser's own words, never the text it stopped at (an entry may hold a secret).
    if (err.code) throw new HarProblem(`cannot read ${harName(file)}: ${err.code}`);
    // A file ending inside a character is no JSON either: its bytes are named first, as elsewhere.
    if (ended) try { scan.end(); } catch (p) { throw new HarProblem(`${harName(file)} is not a HAR file: ${(p as Error).message}`); }
    // A defect in a string's content (a control character, an escape) is the parser's to find; the scan places it.
    const at = scan.locate();
    if (at !== undefined) throw new HarProblem(`${harName(file)} is not a HAR file: ${at}`);
    const entries = `${index + 1} entr${index === 0 ? 'y' : 'ies'} read`;
    if (/should be an array/i.test(err.message ?? '')) throw new HarProblem(`${harName(file)} is not a HAR file: log.entries is not an array`);
    throw new HarProblem(`${harName(file)} is not a HAR file: not valid JSON between bytes ${chunkStart} and ${read} (${entries})`);
  } finally {
    pipeline?.destroy();
  }
  // Standard input cannot be read twice: no entries there is said as such (an empty HAR judges nothing
  // either way). A file without log.entries was refused: the quick reader reads none, the scan names it.
  if (index < 0 && file === '-') throw new HarProblem('standard input holds no HAR entries (an empty recording, or no HAR at all)');
}
