// An exchange as an auditor reads it: request line, headers and body, then the answer, all
// redacted; and as a curl command that replays it.
import { codingProblem } from '../checks/exchange-view.js';
import { acceptEncodingOf } from '../http/content-coding.js';
import { answerHeadOf, BUILT_BY_HARNESS, fieldsOf, PAST_LATIN1, unspellableTarget, type Exchange, type RawHeaders } from '../http/exchange.js';
import { firstIllFormed } from '../json/utf8.js';
import { displayLine, ESCAPED_IN_BLOCK } from './display.js';
import { MAX_REDACTED_TEXT, MAX_SHOWN_TEXT, ownRequestBody, REDACTED_WINDOW, type Redactor, type ShownPart, userinfoOf } from './redact.js';
import { markersIn } from './sensitive-ranges.js';

/** Attachments stay readable: longer bodies are cut at MAX_SHOWN_TEXT characters, saying so; redacted
 *  first, then cut (never inside a marker, nor after the first characters of a secret). `size`: bytes
 *  received, of which `bytes` is all or the head kept, unless `decoded` (`bytes` then holds the body
 *  decoded from its content coding, which `size` does not measure). `coding`: why the body, shown as
 *  received, is not read as the record (codingProblem). */
function bodyText(bytes: Buffer, size: number, redact: Redactor, decoded: boolean, coding: string | undefined): string {
  if (bytes.length === 0) return '';
  const said = coding ? [`shown as received: ${redact.line(coding)}`] : [];
  // A leading byte-order mark is part of what was received (JSON-NO-BOM judges it): kept, and shown escaped.
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  if (text.includes('\u0000')) return `(${size} bytes of binary data)${said.length ? `\n… (${said.join('; ')})` : ''}`;
  const cut = !decoded && size > bytes.length;
  const shown = redact.cut(text, MAX_SHOWN_TEXT, cut);
  const notes = [...said, ...(shown.omitted || cut ? [`${size} bytes received; the rest not shown`] : []), ...notUtf8Note(bytes, cut)];
  return notes.length ? `${shown.text}\n… (${notes.join('; ')})` : shown.text;
}

/** Said of a body whose bytes are not UTF-8: the text shows U+FFFD where they stand, as a U+FFFD
 *  really sent would look. `head`: the bytes are the start of a longer body (a character cut at
 *  their end is no bad byte). */
function notUtf8Note(bytes: Buffer, head: boolean): string[] {
  const bad = firstIllFormed(bytes);
  return bad && !(bad.cut && head) ? [`the bytes are not UTF-8 from byte ${bad.at}: each ill-formed sequence is shown as U+FFFD`] : [];
}

/** The header fields as they came where the exchange has them (names as spelled, in order, repeats
 *  apart), else its map: what the reports show and the replays send. */
const fieldsAsSent = (headers: Readonly<Record<string, string>>, raw: RawHeaders | undefined): [string, string][] =>
  (raw ? fieldsOf(raw) : Object.entries(headers));

/** A URL or a header field is shown this many characters at most (a recording may hold one of a
 *  mebibyte, which every report wrote whole); its curl command sends it whole, from the exchange. */
export const MAX_SHOWN_LINE = 8 * 1024;

/** A URL or a header field as shown (`shown`: redacted): longer ones cut as a body is (Redactor.cut),
 *  saying how long it was. */
export function shownLine(shown: string, redact: Redactor): string {
  if (shown.length <= MAX_SHOWN_LINE) return shown;
  const cut = redact.cut(shown, MAX_SHOWN_LINE);
  return cut.omitted ? `${cut.text}… (${shown.length} characters; the rest not shown)` : cut.text;
}

/** The header fields as they came, each value redacted by its name, in any case; a long one's value
 *  cut (shownLine), its name kept. Each one line (displayLine): a recording's field holding a line
 *  feed would otherwise show as further fields, or a body, that no message held. */
const headerLines = (headers: Readonly<Record<string, string>>, raw: RawHeaders | undefined, redact: Redactor) =>
  fieldsAsSent(headers, raw).map(([k, v]) => {
    const field = redact.headerField(k, v);
    if (field.length <= MAX_SHOWN_LINE) return displayLine(field);
    const value = redact.header(k, v);
    return displayLine(`${field.slice(0, field.length - value.length)}${shownLine(value, redact)}`);
  });

/** A request body as shown: redacted, then cut at MAX_SHOWN_TEXT like a response's (an oversized
 *  generated request is over a megabyte). One longer than REDACTED_WINDOW is redacted in its first
 *  REDACTED_WINDOW characters only (Redactor.head). */
function requestBody(body: string, redact: Redactor): string {
  if (body.length > REDACTED_WINDOW) return redact.head(body, '\n');
  const shown = redact.cut(body, MAX_SHOWN_TEXT);
  return shown.omitted ? `${shown.text}\n… (${shown.omitted} more characters not shown)` : shown.text;
}

/** A request body a curl command carries at most (characters), other than the harness's own: the
 *  command holds it redacted, and redacting costs about a hundred bytes per character at its peak
 *  (the proxy's report of one 4 MiB body reached 760 MB). A longer one is left out, and its command
 *  is not replayed. */
export const MAX_REPLAYED_BODY = 512 * 1024;

/** What stands for a request body that went past the cap: shown, and in its curl command, which
 *  replay.sh then does not run (a replay without the body would be another request). */
export const BODY_LEFT_OUT = '«request body past the body cap: left out»';
/** What stands for a request body a recording does not hold (its Content-Length or Transfer-Encoding says one was sent). */
export const BODY_NOT_RECORDED = '«request body not recorded»';
/** What stands for a request body still coming when its answer was whole (the proxy's): not recorded. */
export const BODY_UNFINISHED = '«request body still coming when its answer was whole: not recorded»';
/** What stands, in a curl command, for a request body longer than MAX_REPLAYED_BODY. */
export const BODY_TOO_LONG = `«request body longer than the ${MAX_REPLAYED_BODY / 1024} KiB a replay carries: left out»`;
/** What stands, in a curl command, for a request body of bytes that are not UTF-8: the exchange
 *  holds its text (U+FFFD for the bad bytes), which curl would send as other bytes. */
export const BODY_NOT_UTF8 = '«request body of bytes that are not UTF-8: not kept as sent»';
/** What stands, in a curl command, for a request body recorded with another length than its
 *  Content-Length (otherLength): not the bytes sent. */
export const BODY_OTHER_LENGTH = '«request body recorded with another length than its Content-Length: not kept as sent»';
/** What stands, in a curl command, for a request body recorded holding a lone surrogate
 *  (loneSurrogateAt): it names no bytes. */
export const BODY_LONE_SURROGATE = '«request body recorded holding a lone surrogate, which names no bytes: not kept as sent»';

/** A generated request's body as shown: as sent (redact.ts, ownRequestBody), cut at MAX_SHOWN_TEXT. */
function ownBody(body: string): string {
  return body.length > MAX_SHOWN_TEXT ? `${body.slice(0, MAX_SHOWN_TEXT)}\n… (${body.length - MAX_SHOWN_TEXT} more characters not shown)` : body;
}

/** How a request's head is redacted: one the harness built (BUILT_BY_HARNESS) is its own text (its
 *  method, URL and fields), redacted of the secrets the run was given alone (`by`: configuredOnly;
 *  `url`: ownUrl); a recorded one is the peer's, redacted of all the run knows. */
function headRedaction(ex: Exchange, redact: Redactor): { readonly built: boolean; readonly by: Redactor; readonly url: (url: string) => string } {
  const built = BUILT_BY_HARNESS.has(ex.origin.source);
  return { built, by: built ? redact.configuredOnly() : redact, url: built ? (u) => redact.ownUrl(u) : (u) => redact.text(u) };
}

export function requestText(ex: Exchange, redact: Redactor): string {
  const r = ex.request;
  // A request the harness built: its head is its own text, kept with its parts.
  const { built, by, url: urlOf } = headRedaction(ex, redact);
  const url = urlOf(r.url);
  // The request line one line, as each header field (headerLines): a recording's method or URL may hold a line feed.
  const head = [`${displayLine(shownLine(by.text(r.method), by))} ${displayLine(shownLine(url, by))}`, ...headerLines(r.headers, r.rawHeaders, by), ''].join('\n');
  const shown = (rest: string, ownRest = false): string => redact.shown([[`${head}\n`, built], [rest, ownRest]]);
  if (r.bodyLeftOut) return shown(BODY_LEFT_OUT, true);
  if (r.bodyNotRecorded) return shown(BODY_NOT_RECORDED, true);
  if (r.bodyUnfinished) return shown(BODY_UNFINISHED, true);
  if (r.body !== undefined && ownRequestBody(ex)) return shown(ownBody(r.body), true);
  const note = r.notUtf8At !== undefined ? `\n… (the bytes are not UTF-8 from byte ${r.notUtf8At}: each ill-formed sequence is shown as U+FFFD)`
    : r.loneSurrogateAt !== undefined ? `\n… (the recording holds a lone surrogate at character ${r.loneSurrogateAt}, which names no bytes: not the bytes sent)`
    : r.bodyRebuilt ? '\n… (rebuilt from the form parameters recorded, postData.params, URL-encoded: maybe not the bytes sent)'
      : r.otherLength !== undefined && r.body !== undefined ? `\n… (recorded as ${Buffer.byteLength(r.body)} bytes, where its Content-Length says ${r.otherLength} were sent: not the bytes sent)` : '';
  return shown(`${r.body === undefined ? '' : requestBody(r.body, redact)}${note}`);
}

/** Why a body whose head came was not read whole, sending it: it stalled, was too slow, or was cut off. */
export const CUT_SHORT: ReadonlySet<string | undefined> = new Set(['body-timeout', 'reset', 'aborted']);

export function responseText(ex: Exchange, redact: Redactor): string {
  const r = answerHeadOf(ex);
  if (!r) return `(no response: ${ex.error?.message ?? 'unknown'})`;
  // The reason phrase as it came (peer text, searched as any is), where the source has one.
  const head = [`HTTP ${r.status}${r.reason ? ` ${displayLine(shownLine(redact.line(r.reason), redact))}` : ''}`, ...headerLines(r.headers, r.rawHeaders, redact), ''];
  // A head kept without its body (Exchange.answerHead): the body is said to be missing, and why.
  // A body decoded is shown decoded, as the checks read it; one left as received says why it is not read.
  const decoded = ex.response?.contentCoding !== undefined && !ex.response.contentCoding.error;
  const body = ex.response ? bodyText(ex.response.body, ex.response.size, redact, decoded, codingProblem(ex.response, acceptEncodingOf(ex.request.headers)))
    : `(the body ${ex.error?.kind === 'too-large' ? 'was not read past the cap' : CUT_SHORT.has(ex.error?.kind) ? 'did not come whole' : 'is not recorded'}: ${ex.error?.message ?? 'unknown'})`;
  return [...head, body].join('\n');
}

/** Text as one single-quoted shell word (the curl commands here, replay.sh). */
export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A character of a Latin-1 text (a header as read from its bytes) that stands for a byte past ASCII. */
const LATIN1_HIGH = /[\x80-\xff]/g;

/** The runs of adjacent characters an output shows escaped (ESCAPED_IN_BLOCK), as [from, to); with
 *  `latin1`, each character past ASCII too, but a marker's « and » (the text is a redacted one). */
function* escapedRuns(text: string, latin1 = false): Generator<readonly [number, number]> {
  const marked = latin1 ? markersIn(text) : [];
  const high = latin1 ? [...text.matchAll(LATIN1_HIGH)].filter((m) => !marked.some(([a, b]) => m.index >= a && m.index < b)) : [];
  const escaped = [...text.matchAll(ESCAPED_IN_BLOCK), ...high].sort((a, b) => a.index - b.index);
  for (let k = 0; k < escaped.length;) {
    const from = escaped[k]!.index;
    let to = from + escaped[k]![0].length;
    for (k++; k < escaped.length && escaped[k]!.index <= to; k++) to = Math.max(to, escaped[k]!.index + escaped[k]![0].length);
    yield [from, to];
  }
}

/** Text as one shell word that gives a command its very bytes: single-quoted, each run of characters
 *  an output shows escaped (a control character, a bidi mark) written by a printf of its bytes, so
 *  the command, shown as every output shows text, still sends what was recorded, and each long run
 *  of one plain character made by a command (LONG_RUN: a header value or a URL of a mebibyte). POSIX
 *  (dash, the usual sh, has no $'…'); neither writes a line feed, which a command substitution would drop. */
export function shellArg(text: string, latin1 = false): string {
  let word = '';
  let last = 0;
  for (const [from, to] of escapedRuns(text, latin1)) {
    if (from > last) word += quotedText(text.slice(last, from));
    word += `"$(${bytesWriter(text.slice(from, to), latin1)})"`;
    last = to;
  }
  return last < text.length || !word ? word + quotedText(text.slice(last)) : word;
}

/** Text (holding no character displayBlock escapes) as a shell word: single-quoted, its long runs made. */
const quotedText = (text: string): string => piecesOf(text, shellQuote, (run) => `"$(${run})"`).join('') || shellQuote(text);

/** A word as it is when the shell reads it so (POST), else quoted: a recording's method is its recorder's text. */
const shellWord = (s: string) => (/^[A-Za-z0-9_.-]+$/.test(s) ? s : shellArg(s));

/** A run of one plain character this long is made by a command rather than written out, so that the
 *  curl of an oversized body (a generated one is over a megabyte) stays short, fits the system's
 *  limit on one argument, and still sends the very same bytes. */
const LONG_RUN = 4096;
const PLAIN = /[A-Za-z0-9]/;

/** The runs of one plain character at least LONG_RUN long, found by a loop: a back-reference
 *  pattern (/([A-Za-z0-9])\1{4095,}/) overflows the stack on a run of a few megabytes. */
function* longRuns(body: string): Generator<{ index: number; length: number; char: string }> {
  for (let i = 0; i < body.length;) {
    let j = i + 1;
    while (j < body.length && body.charCodeAt(j) === body.charCodeAt(i)) j++;
    if (j - i >= LONG_RUN && PLAIN.test(body[i]!)) yield { index: i, length: j - i, char: body[i]! };
    i = j;
  }
}

/** The command that writes a long run. */
const runWriter = (m: { length: number; char: string }): string => `head -c ${m.length} /dev/zero | tr '\\0' '${m.char}'`;

/** `text` in pieces: each long run as `run` writes the command that makes it, the text between as `plain`. */
function piecesOf(text: string, plain: (text: string) => string, run: (command: string) => string): string[] {
  const pieces: string[] = [];
  let last = 0;
  for (const m of longRuns(text)) {
    if (m.index > last) pieces.push(plain(text.slice(last, m.index)));
    pieces.push(run(runWriter(m)));
    last = m.index + m.length;
  }
  if (last < text.length) pieces.push(plain(text.slice(last)));
  return pieces;
}

/** The bytes `chars` stand for: their UTF-8, or with `latin1` (a header read from its bytes as
 *  Latin-1, as Node and undici read and write them) each character's own byte. */
const bytesOf = (chars: string, latin1: boolean): number[] =>
  [...chars].flatMap((c) => (latin1 && c.charCodeAt(0) <= 0xff ? [c.charCodeAt(0)] : [...Buffer.from(c, 'utf8')]));

/** A printf format of the octal escapes of the bytes `chars` stand for (bytesOf). */
const octalOf = (chars: string, latin1: boolean): string => bytesOf(chars, latin1).map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');

/** A printf writing `chars` by the octal escapes of their bytes. */
const bytesWriter = (chars: string, latin1 = false): string => `printf '${octalOf(chars, latin1)}'`;

/** Commands that write `text`, then `end` (a printf format): printf whose format holds the text, each
 *  run of characters an output shows escaped (with `latin1`, each character past ASCII too) as the
 *  octal escapes of its bytes, each long run made by a command. No command substitution: dash ends
 *  with a segmentation fault on a word of a few thousand. */
function formatWriters(text: string, latin1: boolean, end: string): string[] {
  const writers: string[] = [];
  let format = '';
  const flush = (): void => { if (format) writers.push(`printf ${shellQuote(format)}`); format = ''; };
  const plain = (t: string): void => {
    let last = 0;
    for (const m of longRuns(t)) {
      format += t.slice(last, m.index).replace(/[\\%]/g, (c) => c + c);
      flush();
      writers.push(runWriter(m));
      last = m.index + m.length;
    }
    format += t.slice(last).replace(/[\\%]/g, (c) => c + c);
  };
  let last = 0;
  for (const [from, to] of escapedRuns(text, latin1)) {
    plain(text.slice(last, from));
    format += octalOf(text.slice(from, to), latin1);
    last = to;
  }
  plain(text.slice(last));
  format += end;
  flush();
  return writers;
}

/** The bytes an argument of curl's may be: Linux takes at most 128 KiB in one (MAX_ARG_STRLEN),
 *  about 2 MiB in all. A request's header fields, URL and request target together take this at most. */
const LONG_ARGUMENTS = 64 * 1024;
/** The runs one word may make by a command (escaped characters, a long run): dash ends with a
 *  segmentation fault past a few thousand in one word. */
const MAX_MADE_RUNS = 1000;

/** Whether `text` (a URL, a header field: `latin1`) may be given to curl as an argument: when it has
 *  `room` bytes at most and not too many runs to make. */
function fitsArgument(text: string, latin1: boolean, room: number): boolean {
  if (Buffer.byteLength(text) > room) return false;
  let made = 0;
  for (const _ of escapedRuns(text, latin1)) if (++made > MAX_MADE_RUNS) return false;
  for (const _ of longRuns(text)) if (++made > MAX_MADE_RUNS) return false;
  return true;
}

/** Commands that write these header fields, one a line, for curl's `-H @file` (no bound on a line's
 *  length, unlike a config's 100 KiB in curl 7.88): the same bytes as the arguments. */
const fieldsWriter = (fields: readonly string[]): string =>
  `{ ${fields.flatMap((f) => formatWriters(f, true, '\\n')).join('; ')}; }`;

/** What starts a curl command of a request curl cannot be given as sent: a method, URL or request
 *  target too long for its command line and no query it reads from a file (-G, a request without a
 *  body). replay.sh does not run it. */
export const TOO_LONG_FOR_CURL = ": 'a method, URL or request target too long for the command line of curl, which it cannot read from a file as sent: maybe not the bytes sent';";

/** What starts a curl command of a request whose URL holds a character no request line carries (a
 *  space, a control: RFC 9112 3.2), which curl refuses ("URL using bad/illegal format"): a recording
 *  may hold one written decoded, and does not say how it was sent. replay.sh does not run it. */
export const URL_UNSENDABLE = ": 'a URL holding a space or a control character, which no request line carries: not sent';";

/** What a curl command of a request whose method or header field no request carries is in whole (a
 *  recording's: a method or field name that is no token, RFC 9110 9.1 and 5.1; a field value holding
 *  CR, LF or NUL, 5.5). curl sends -X and -H as given, so a line break there would be sent as further
 *  lines of the head, or a second request the recording never held: no command is written. */
export const HEAD_UNSENDABLE = ": 'a method or header field that no request carries (no token, or a value holding CR, LF or NUL): not sent';";
/** RFC 9110 5.6.2's token: what a method and a field name are. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What a field value never holds (RFC 9110 5.5). */
const NOT_IN_FIELD_VALUE = /[\r\n\0]/;

/** The most bytes of a request head curl 7.88 sends (DYN_HTTP_REQUEST: it says "Out of memory"),
 *  less room for the fields it adds. */
const MAX_CURL_HEAD = 1024 * 1024 - 1024;
/** What starts a curl command of a request whose head is longer than curl sends: replay.sh does not run it. */
export const HEAD_TOO_LONG_FOR_CURL = ": 'a request head of more than 1 MiB, which curl does not send: not sent';";

/** Shell commands that write `body` to standard output, or undefined when it needs none: when it has
 *  no long run, no character an output shows escaped (a control character, a bidi mark), and fits
 *  an argument (LONG_ARGUMENTS). Those
 *  are written by their bytes, so that the command, shown escaped as every output shows text, still
 *  sends what was sent. */
function bodyWriter(body: string): string | undefined {
  if (escapedRuns(body).next().done && longRuns(body).next().done && Buffer.byteLength(body) <= LONG_ARGUMENTS) return undefined;
  // One printf format for all between long runs (the shell's own printf: no argument limit), its
  // escaped characters by their octal bytes: a printf each made 240 000 commands of a body of
  // 120 000 control characters, which dash took minutes over or ended on.
  return `{ ${formatWriters(body, false, '').join('; ')}; }`;
}

/** A HEAD without a body is sent with --head: `-X HEAD` makes curl wait for the body its answer's
 *  Content-Length announces, which never comes. */
const headMethod = (r: Exchange['request']): boolean => r.method === 'HEAD' && r.body === undefined && !r.bodyLeftOut && !r.bodyNotRecorded && !r.bodyUnfinished;

/** How a curl command sending a HEAD says so (replay.sh hashes no body for it: curl writes the
 *  answer's headers where a body goes). */
export const HEAD_OPTION = ' --head ';

/** A replayed curl's bounds, in seconds as curl reads them: to connect, and for the whole exchange. */
export interface CurlBounds { readonly connect: string; readonly max: string }

/** How every replay command starts: curl within its bounds, then its output options (`-i` in the
 *  reports; replay.sh swaps the whole start for its own, its bounds shell variables). */
export const curlStart = (bounds: CurlBounds, output: string): string => `curl -sS --connect-timeout ${bounds.connect} --max-time ${bounds.max} ${output}`;

/** What starts a curl command whose body the recording held as form parameters only (a HAR's
 *  postData.params): URL-encoded here, maybe not as the client encoded them. A no-op command, so
 *  the command still runs, and says so where it is shown. */
export const BODY_REBUILT = ": 'body rebuilt from the form parameters recorded (postData.params), URL-encoded: maybe not the bytes sent';";

/** What starts a curl command of a request with a header holding a character past U+00FF, which
 *  names no byte (PAST_LATIN1): curl sends its UTF-8, maybe not what was sent; replay.sh does not run it. */
export const HEADER_PAST_LATIN1 = ": 'a header holds a character past U+00FF, which names no byte (written here as UTF-8): maybe not the bytes sent';";

/** The header fields a curl command of the request writes, in order: as sent, less the recorded
 *  Content-Length of a rebuilt body (curl writes its own length). */
const curlFields = (r: Exchange['request']): [string, string][] =>
  fieldsAsSent(r.headers, r.rawHeaders).filter(([k]) => !(r.bodyRebuilt && k.toLowerCase() === 'content-length'));

/** The fields of a request whose values its curl command writes as secret markers, in that order. */
export const secretFieldsOf = (ex: Exchange, redact: Redactor): [string, string][] =>
  curlFields(ex.request).filter(([k]) => redact.secretHeaderName(k));

/** A curl command that sends the same request (secret values replaced by markers to fill in), within
 *  `bounds` (replayBounds: a peer that hangs does not hold it forever). Header fields too long for
 *  curl's command line are read from a file (-H @file), a URL's query so too where no body is sent
 *  (-G): the same bytes. */
export function curlCommand(ex: Exchange, redact: Redactor, bounds: CurlBounds): string {
  const r = ex.request;
  // curl reads [ ] { } in a URL as globs and resolves dot segments: off, where the URL has them.
  const path = r.url.replace(/[?#].*$/s, '');
  // Each field as it was sent (names as spelled, repeats apart, in order), where the exchange has them.
  // A header's text is its bytes read as Latin-1 (PAST_LATIN1), sent as those bytes, a recording's
  // as any other: the harness sent a HAR's so (undici). A header of no value is written `Name;`
  // (curl drops `Name: `). A rebuilt body's length is its own, not the recorded Content-Length
  // (curl writes it).
  const fields = curlFields(r);
  if (!TOKEN.test(r.method) || fields.some(([k, v]) => !TOKEN.test(k) || NOT_IN_FIELD_VALUE.test(v))) return redact.shown([own(HEAD_UNSENDABLE)]);
  // The names sent (Content-Length, which curlFields may leave out, is none that is asked of them).
  const sent = new Set(fields.map(([k]) => k.toLowerCase()));
  // An answer a recording holds decoded is hashed decoded: curl decodes the replay's (its request's
  // own Accept-Encoding kept: curl then adds none).
  const decodes = ex.response?.contentCoding?.byRecorder && sent.has('accept-encoding');
  const head = headMethod(r);
  const pastLatin1 = fields.some(([k, v]) => PAST_LATIN1.test(k) || PAST_LATIN1.test(v));
  const { built, by, url: urlOf } = headRedaction(ex, redact);
  const lines = fields.map(([k, v]) => { const field = by.headerField(k, v); return field.endsWith(': ') ? `${field.slice(0, -2)};` : field; });
  // A target the URL does not spell (OPTIONS *, an absolute-form one) goes, as sent, where it was sent.
  const target = r.asSent ? urlOf(r.asSent.target) : undefined;
  // Without its userinfo: curl would send one as an Authorization header the request did not carry.
  const url = urlOf(withoutUserinfo(r.asSent?.origin ?? r.url));
  const body = bodyOf(ex, redact);
  // A URL too long for an argument: its query read from a file (-G), where no body is sent.
  const unfragmented = url.replace(/#.*$/s, '');
  const at = unfragmented.indexOf('?');
  const byQuery = !fitsArgument(url, false, LONG_ARGUMENTS) && at >= 0 && body.data === undefined && target === undefined && fitsArgument(unfragmented.slice(0, at), false, LONG_ARGUMENTS);
  const shownUrl = byQuery ? unfragmented.slice(0, at) : url;
  // The fields as arguments where they fit beside the URL, else all read from a file, in order.
  let room = LONG_ARGUMENTS - Buffer.byteLength(shownUrl) - Buffer.byteLength(target ?? '');
  const asArguments = lines.every((f) => { const fits = fitsArgument(f, true, room); room -= Buffer.byteLength(f); return fits; });
  // What curl cannot be given as sent: a method, URL or target too long (header fields are read from a
  // file then, none holding a line break: HEAD_UNSENDABLE).
  const method = by.text(r.method);
  const tooLong = !fitsArgument(method, false, LONG_ARGUMENTS) || !fitsArgument(shownUrl, false, LONG_ARGUMENTS) || (target !== undefined && !fitsArgument(target, false, LONG_ARGUMENTS));
  // Read on standard input, or on descriptor 3 where the body or the query comes on standard input.
  const piped = byQuery || body.writer !== undefined;
  // The command's own words are the harness's text, never masked (a target's credential spelled
  // "max-time" had masked the option in every command, and stopped every replay); what the request
  // holds is its own where it built it.
  const parts: ShownPart[] = [[curlStart(bounds, '-i'), true], ...(head ? [own(HEAD_OPTION.trim())] : []), ...(decodes ? [own('--compressed')] : []), ...(/[[\]{}]/.test(r.url) ? [own('--globoff')] : []),
    ...(/\/\.\.?(?:\/|$)/.test(path) ? [own('--path-as-is')] : []), ...(target !== undefined ? [own('--request-target'), [shellArg(target), built] as const] : []), ...(head ? [] : [own('-X'), [shellWord(method), built] as const])];
  if (asArguments) for (const field of lines) parts.push(own('-H'), [shellArg(field, true), built]);
  else parts.push(own('-H'), own(piped ? '@/dev/fd/3' : '@-'));
  const command = commandOf(ex, body, parts, built, {
    url: shellArg(shownUrl),
    ...(asArguments ? {} : { fields: fieldsWriter(lines) }),
    ...(byQuery ? { query: `{ ${formatWriters(unfragmented.slice(at + 1), false, '').join('; ')}; }` } : {}),
  }, sent);
  const headBytes = Buffer.byteLength(method) + Buffer.byteLength(target ?? url) + lines.reduce((n, f) => n + Buffer.byteLength(f) + 2, 0);
  // A part longer than the redactor reads whole is written by its head (Redactor.head): the head it
  // is in is longer than curl sends.
  const shownByHead = [r.method, r.url, r.asSent?.target ?? '', r.asSent?.origin ?? '', ...fields.flat()].some((t) => t.length > MAX_REDACTED_TEXT);
  // A target kept as sent (asSent) goes with --request-target; a URL itself never holds such a character.
  const unsendable = target === undefined && unspellableTarget(r.url.replace(/#.*$/s, ''));
  const said = `${pastLatin1 ? `${HEADER_PAST_LATIN1} ` : ''}${unsendable ? `${URL_UNSENDABLE} ` : ''}${shownByHead ? `${HEAD_TOO_LONG_FOR_CURL} ` : tooLong ? `${TOO_LONG_FOR_CURL} ` : headBytes > MAX_CURL_HEAD ? `${HEAD_TOO_LONG_FOR_CURL} ` : ''}`;
  // Kept with its parts (Redactor.shown): the boundary's pass redacts the others again, never the own ones.
  return redact.shown(joinedParts([own(said), ...command]));
}

/** A URL less its userinfo (`user:password@`). */
function withoutUserinfo(url: string): string {
  const userinfo = userinfoOf(url);
  return userinfo === undefined ? url : url.replace(`${userinfo}@`, '');
}

/** A request's body as its curl command sends it: `missing`, a marker standing for it (replay.sh
 *  does not run the command); else its text (`data`) and what writes it on curl's standard input
 *  (bodyWriter), `own` where it is a generated request's (ownRequestBody: the harness's own text,
 *  the rest of the command redacted as ever). */
interface CurlBody { readonly missing?: string; readonly data?: string; readonly writer?: string; readonly own: boolean }

function bodyOf(ex: Exchange, redact: Redactor): CurlBody {
  const r = ex.request;
  // A body left out, or not kept as sent: a marker, and replay.sh does not run the command.
  const missing = r.bodyLeftOut ? BODY_LEFT_OUT : r.bodyNotRecorded ? BODY_NOT_RECORDED : r.bodyUnfinished ? BODY_UNFINISHED : r.notUtf8At !== undefined ? BODY_NOT_UTF8 : r.otherLength !== undefined ? BODY_OTHER_LENGTH : r.loneSurrogateAt !== undefined ? BODY_LONE_SURROGATE : undefined;
  if (missing) return { missing, own: false };
  // A chunked request of no body sent its last chunk: --data-binary '' sends it (with none, curl sends
  // the head alone and the target waits for the chunks).
  if (r.body === undefined) return fieldsAsSent(r.headers, r.rawHeaders).some(([k]) => k.toLowerCase() === 'transfer-encoding') ? { data: '', own: false } : { own: false };
  const own = !r.bodyRebuilt && ownRequestBody(ex);
  // The harness's own text is sent as it is, whatever its length; another is redacted for the command.
  if (!own && r.body.length > MAX_REPLAYED_BODY) return { missing: BODY_TOO_LONG, own: false };
  const data = own ? r.body : redact.text(r.body);
  const writer = bodyWriter(data);
  return { data, own, ...(writer ? { writer } : {}) };
}

/** curlCommand's end: the options after the header fields, the body and the URL, and what writes
 *  curl the files it reads (the fields, the query, the body). */
function commandOf(ex: Exchange, body: CurlBody, parts: ShownPart[], built: boolean, given: { readonly url: string; readonly fields?: string; readonly query?: string }, sent: ReadonlySet<string>): ShownPart[] {
  const r = ex.request;
  // The headers curl adds of its own that the run did not send, removed (`Name:`).
  const large = r.body !== undefined && Buffer.byteLength(r.body) > 1024;
  for (const [name, adds] of [['accept', true], ['user-agent', true], ['content-type', body.data !== undefined || r.body !== undefined], ['expect', large]] as const) {
    if (adds && !sent.has(name)) parts.push(own('-H'), own(`'${name}:'`));
  }
  const data: ShownPart[] = body.missing ? [own(` --data-binary ${shellQuote(body.missing)}`)] : given.query ? [own(' -G --data-binary @-')]
    : body.data === undefined ? [] : body.writer ? [own(' --data-binary @-')] : [own(' --data-binary '), [shellQuote(body.data), body.own]];
  const curl: ShownPart[] = [...parts.flatMap((p, i) => (i ? [own(' '), p] : [p])), ...data, own(' '), [given.url, built]];
  // A query read from a file is the URL's: the harness's where it built the request.
  const input: ShownPart | undefined = given.query ? [given.query, built] : body.writer ? [body.writer, body.own] : undefined;
  const piped: ShownPart[] = input ? [input, own(' | '), ...curl] : curl;
  const fields: ShownPart | undefined = given.fields ? [given.fields, built] : undefined;
  const pieces: ShownPart[] = !fields ? piped : input ? [fields, own(' | { '), ...piped, own('; } 3<&0')] : [fields, own(' | '), ...piped];
  return r.bodyRebuilt && body.data !== undefined ? [own(`${BODY_REBUILT} `), ...pieces] : pieces;
}

/** A part of a command that is the harness's own text. */
const own = (text: string): ShownPart => [text, true];

/** Adjacent parts of one kind as one part. */
function joinedParts(parts: readonly ShownPart[]): ShownPart[] {
  const out: [string, boolean][] = [];
  for (const [text, own] of parts) {
    const last = out.at(-1);
    if (last && last[1] === own) last[0] += text;
    else out.push([text, own]);
  }
  return out;
}
