// A recorded exchange: what was sent and what came back (or why nothing did), whoever sent it.
// Checks read only these records.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';

/** Where evidence comes from: the harness's probes, an accounts file's cases, a recording, the
 *  validating proxy, generated requests, or a client talking to the judging reference. */
export type EvidenceSource = 'probe' | 'case' | 'har' | 'proxy' | 'generated' | 'client';

/** The sources whose requests the harness built and sent itself (from the contract, the sample, an
 *  accounts file, the generator): their method, URL and fields are its own text, shown as sent (only
 *  the secrets it was given masked). A recorded or forwarded one is a peer's. */
export const BUILT_BY_HARNESS: ReadonlySet<EvidenceSource> = new Set(['probe', 'case', 'generated']);

/** How an exchange came into the run. Checks bind to what an exchange is (its kind), never to where
 *  it came from; the origin only says whether the harness vouches for the request and which account
 *  it belongs to. */
export interface Origin {
  readonly source: EvidenceSource;
  /** The harness built the request as a valid one of an existing account: anything but success is a
   *  failure. Traffic it did not build may meet a legitimate client error (a 4xx is not judged
   *  against the success contract). */
  readonly vouched: boolean;
  /** The account (case) it belongs to: its line in the accounts file. */
  readonly case?: number;
  /** Set on a request generated to explore inputs (--generate): built as a valid request of 2.2, or
   *  deliberately invalid (malformed JSON, a wrong type, SOAP 1.2, …). Its error answers are the
   *  Robustness checks' to judge, never the success contract's. */
  readonly intent?: 'valid' | 'invalid';
  /** A generated request's body written as JSON (or the start of such a text): where each value the
   *  harness put under a member named as sensitive stands in it, as [start, end, credential] triples
   *  (credential: 1 when a credential's name holds it, 0 when personal names only), in order; null,
   *  true and false too (cut short, they read as words). The redactor takes these values as the
   *  harness's own from there, instead of walking the text for them. */
  readonly ownValues?: readonly number[];
}

/** A character past U+00FF. A header's text is its bytes read as Latin-1: Node's parser and undici
 *  read and write them so, and so do browsers record them (Chromium's DevTools converts each raw
 *  header value from ISO-8859-1; fetch() sends a header string's characters as bytes and refuses one
 *  past U+00FF). A HAR's header value holding one names no byte: what was sent is not known. */
export const PAST_LATIN1 = /[^\u0000-\u00ff]/;

export interface ExchangeSpec {
  /** Unique in the run, e.g. "login.post" (a probe) or "case-17.login". */
  readonly id: string;
  readonly origin: Origin;
  /** One line: what this request is for. */
  readonly title: string;
  readonly method: string;
  /** Path and query, relative to the base URL. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The header fields as a recording holds them (names as spelled, in order, repeats apart): sent
   *  instead of `headers`, which is their map. */
  readonly fields?: readonly (readonly [string, string])[];
  readonly body?: string;
}

export interface RecordedResponse {
  readonly status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** The reason phrase that came with the status, where the source has it (the report shows it). */
  readonly reason?: string;
  /** The header fields as received, where the source has them (the report shows these, not `headers`). */
  readonly rawHeaders?: RawHeaders;
  /** The body as received; an exchange kept for the report past its judging keeps only a bounded
   *  head of it (`size` and `sha256` still describe the whole). */
  readonly body: Buffer;
  /** Bytes received. */
  readonly size: number;
  /** SHA-256 of the body as received: a replay that reproduces it has the same. */
  readonly sha256: string;
  /** The body came in these content codings, which the request offered: `body` holds it decoded
   *  (`size` and `sha256` still describe the bytes received), or as received with `error` when it
   *  does not decode. `byRecorder`: a recording holds it decoded (a HAR's content.text), whatever the
   *  request offered; the bytes received are not in it, so `size` and `sha256` are of the decoded
   *  body, and that it decoded is the recorder's word. The one place a recording's answer differs. */
  readonly contentCoding?: { readonly codings: readonly string[]; readonly error?: string; readonly byRecorder?: true };
}

/** An answer's status line and header fields, without its body. */
export type AnswerHead = Pick<RecordedResponse, 'status' | 'headers' | 'reason' | 'rawHeaders'>;

/** An exchange's answer head: its response's, or the one kept without a body (Exchange.answerHead). */
export const answerHeadOf = (ex: Pick<Exchange, 'response' | 'answerHead'>): AnswerHead | undefined => ex.response ?? ex.answerHead;

/** Headers as an exchange keeps them (lower-case names, repeats joined with ", "), from name-value
 *  pairs in any case: a recording's list, a raw header list, or a Node headers object's entries. */
export function exchangeHeaders(pairs: Iterable<readonly [string, string | readonly string[] | undefined]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rawName, value] of pairs) {
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    const text = typeof value === 'string' ? value : value.join(', ');
    // Own members only: `constructor` is Object.prototype's until a peer sends one.
    out[name] = Object.hasOwn(out, name) ? `${out[name]}, ${text}` : text;
  }
  return out;
}

/** Header fields as a source received them: names as spelled, in order, repeats apart. A flat
 *  [name, value, …] list (undici's Buffers, Node's rawHeaders) or a recording's [{ name, value }].
 *  Kept as the source's own reference (no copy per exchange); fieldsOf reads it once it is shown. */
export type RawHeaders = readonly (string | Uint8Array | { readonly name?: unknown; readonly value?: unknown })[];

/** A header's bytes as text: Latin-1, as undici and Node read them. */
const fieldText = (v: unknown): string | undefined => (typeof v === 'string' ? v : v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('latin1') : undefined);

/** The fields of a raw list as [name, value] pairs; a recording's item that is no header field (no
 *  text name or value, an HTTP/2 pseudo-header) is left out, as exchangeHeaders leaves it. */
export function fieldsOf(raw: RawHeaders): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i++) {
    const item = raw[i];
    const pair = typeof item === 'string' || item instanceof Uint8Array ? [fieldText(item), fieldText(raw[++i])] : [fieldText(item?.name), fieldText(item?.value)];
    const [name, value] = pair;
    if (name !== undefined && value !== undefined && !name.startsWith(':')) out.push([name, value]);
  }
  return out;
}

/** [name, value] pairs of a raw header list ([name, value, name, value, …], as Node receives them). */
export function* rawPairs(raw: readonly string[]): Generator<readonly [string, string]> {
  for (let i = 0; i + 1 < raw.length; i += 2) yield [raw[i]!, raw[i + 1]!];
}

/** A request body received as bytes, as an exchange holds it: its UTF-8 text and, when the bytes are
 *  not UTF-8, where the first bad one is (so a check can name it instead of judging U+FFFD). */
export function requestBodyOf(bytes: Buffer): { readonly body: string; readonly notUtf8At?: number } {
  const body = bytes.toString('utf8');
  if (isUtf8(bytes)) return { body };
  // Everything before the first replacement character that stands for bad bytes decoded as itself,
  // so its UTF-8 length is where the bad bytes begin; a U+FFFD the client really sent is skipped.
  for (let i = body.indexOf('\uFFFD'); i >= 0; i = body.indexOf('\uFFFD', i + 1)) {
    const at = Buffer.byteLength(body.slice(0, i));
    if (!(bytes[at] === 0xef && bytes[at + 1] === 0xbf && bytes[at + 2] === 0xbd)) return { body, notUtf8At: at };
  }
  return { body, notUtf8At: 0 }; // not reached: bytes that are not UTF-8 always decode to some U+FFFD
}

/** Digests taken, by the response record they were read from. */
const DIGESTS = new WeakMap<object, string>();
/** The record's own `sha256` member: a getter (enumerable, so a copy or a report takes the digest
 *  then), one function shared by every record, not a closure per record: a literal with a getter of
 *  its own cost about four times as much to build. */
const SHA256: PropertyDescriptor = {
  get(this: { readonly body: Buffer }): string {
    let digest = DIGESTS.get(this);
    if (digest === undefined) DIGESTS.set(this, (digest = createHash('sha256').update(this.body).digest('hex')));
    return digest;
  },
  enumerable: true,
  configurable: true,
};

/** A recorded response with its size and digest taken from the whole body. The digest is taken the
 *  first time it is read (a report's kept exchange, a copy of the record), from the bytes given here:
 *  most exchanges are judged and dropped without it being read. */
export function recordedResponse(status: number, headers: Readonly<Record<string, string>>, body: Buffer, reason?: string, rawHeaders?: RawHeaders): RecordedResponse {
  const record = reason === undefined && rawHeaders === undefined ? { status, headers, body, size: body.length } : { status, headers, reason, rawHeaders, body, size: body.length };
  return Object.defineProperty(record, 'sha256', SHA256) as RecordedResponse;
}

export type TransportErrorKind =
  | 'refused' | 'dns' | 'tls' | 'connect-timeout' // the target cannot be reached
  | 'headers-timeout' | 'body-timeout' | 'too-large' | 'reset' | 'aborted' | 'other'
  | 'not-sent' // the run's request cap was spent before this exchange, or the run was stopped (STOPPED_RUN)
  | 'not-recorded' // a recording (HAR) holds the request but not its answer, or not its body
  | 'not-read'; // an answer HTTP allows that the harness's client cannot read past (its limit, not the target's fault)

/** Why an answer has no body to judge, its head having come: the body went past the cap (as
 *  received, or once its content coding was undone: `how`). Sending, HAR and the proxy say it alike. */
export function bodyPastCap(maxBodyBytes: number, how = ''): TransportError {
  const cap = maxBodyBytes % (1024 * 1024) === 0 ? `${maxBodyBytes / (1024 * 1024)} MiB` : `${maxBodyBytes} bytes`;
  return { kind: 'too-large', message: `response body exceeded the ${cap} cap${how}` };
}

/** What a not-sent exchange's message says when a signal stopped the run, not the request cap. */
export const STOPPED_RUN = 'the run was stopped';

/** Kinds that mean "no connection was made at all". */
export const UNREACHABLE: ReadonlySet<TransportErrorKind> = new Set(['refused', 'dns', 'tls', 'connect-timeout']);

export interface TransportError {
  readonly kind: TransportErrorKind;
  /** One line, no stack: "connection refused by 127.0.0.1:9", "no response headers within 10 s". */
  readonly message: string;
}

export interface Exchange {
  readonly id: string;
  readonly title: string;
  readonly origin: Origin;
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    /** The header fields as received, where the source has them (shown instead of `headers`). */
    readonly rawHeaders?: RawHeaders;
    readonly body?: string;
    /** The body came as bytes that are not UTF-8 (a client's request seen by the proxy or the judging
     *  reference): the offset of the first bad byte; `body` holds U+FFFD there, as any decoder would. */
    readonly notUtf8At?: number;
    /** A body was sent but it went past the body cap, so it is left out (`body` is absent): the checks
     *  that read it skip, saying so, rather than judge the request as one sent without a body. */
    readonly bodyLeftOut?: true;
    /** A body was sent (its Content-Length says so) but the recording holds none (a HAR entry without
     *  postData): absent, and the checks that read it skip, as for one left out. */
    readonly bodyNotRecorded?: true;
    /** A body was still coming when its answer was whole (the proxy saw a target answer before it had
     *  read it): what had come by then is not the body sent, so `body` is absent and the checks that
     *  read it skip, saying so, as for one not recorded. */
    readonly bodyUnfinished?: true;
    /** The body is the recording's form parameters (a HAR's postData.params) URL-encoded here: the
     *  bytes sent were not recorded, so a replay says it sends a body rebuilt. */
    readonly bodyRebuilt?: true;
    /** The Content-Length recorded with a body whose UTF-8 is of another length (a HAR's postData.text
     *  its recorder re-encoded or cut): judged as recorded, but not the bytes sent, so never replayed. */
    readonly otherLength?: number;
    /** The recording's text of the body (a HAR's postData) holds a lone surrogate at this character
     *  (LONE_SURROGATE): it names no bytes, so what was sent is not known. `body` keeps the text as
     *  recorded; the checks that read it skip, and it is never replayed. */
    readonly loneSurrogateAt?: number;
    /** The request target as sent where `url` does not spell it (`*`, RFC 9112 3.2.4; an absolute-form
     *  target a client sent the judging reference, whose `url` is what it resolves to; one a URL cannot
     *  carry as sent, unspellableTarget), and the origin it was sent to: a replay sends that target there. */
    readonly asSent?: { readonly target: string; readonly origin: string };
  };
  readonly response?: RecordedResponse;
  /** The answer's status line and header fields as they came, without its body: a recording holds
   *  no body as sent (`error` not-recorded), or the body went past the cap and was not read on
   *  (`error` too-large), or it stalled, was too slow or was cut off (body-timeout, aborted, reset);
   *  `response` is absent. The checks that read only the head (side 'head')
   *  judge it, the reports show it, and every other reader sees no answer. */
  readonly answerHead?: AnswerHead;
  readonly error?: TransportError;
  readonly startedAt: string;
  /** Wall time of the exchange, retries and their waits included. */
  readonly durationMs: number;
  /** Requests sent for it, when more than one (429/503 with Retry-After were retried). */
  readonly attempts?: number;
  /** A 429 or 503 with Retry-After that was not retried further, and why:
   *  "429 Too Many Requests (Retry-After: 0), gave up after 3 tries". */
  readonly gaveUp?: string;
}

/** A request target a URL does not carry as sent: a # (a URL's fragment is never sent) or a space or
 *  control character (a URL may hold none: curl refuses it). A client sent one through the proxy or to
 *  the judging reference: its exchange keeps it as `asSent`, so that a replay sends it so. */
export const unspellableTarget = (target: string): boolean => /[#\x00-\x20\x7f]/.test(target);
