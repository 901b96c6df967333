// Live traffic: a reverse proxy that forwards every request to the target and every answer back as
// it came (status and reason phrase, headers in their order and letter case, body bytes streamed),
// and hands a copy of each finished exchange to whoever judges it, off the forwarding path. Only
// hop-by-hop headers are made again for each hop (RFC 9110 7.6.1) and Host names the target (no Via
// is added; Node adds Date where the target sent none, as RFC 9110 6.6.1 asks); every request goes
// on framed as it came, or is refused with 400. The copy of a body stops at the body
// cap, and all copies together at the room the caller gives; the bytes forwarded never do. A client
// that keeps the proxy waiting past --timeout loses its exchange's copies (never its bytes) once
// another exchange needs the room, so it cannot hold the room for everyone else. An answer Node
// will not write gets the client a 502 naming why; a request body not whole `bodyDeadline` after its
// head, a 408. Nothing here knows of checks.
import { ClientRequest, createServer, globalAgent as httpAgent, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { globalAgent as httpsAgent } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { asksUpgrade, ConnectionGuard, declaresBody, movedBy, unreadTake, type ConnectionCounts, type Stalls } from '../http/connection-guard.js';
import { decodedAnswer } from '../http/content-coding.js';
import { bodyPastCap, exchangeHeaders, rawPairs, requestBodyOf, type Exchange, type TransportError, unspellableTarget } from '../http/exchange.js';
import { threadBusy } from './thread-busy.js';

/** Room for the copies kept for judging, shared by every exchange in flight (and by those waiting
 *  for the judge, as its owner wishes): a bound on the bytes copied across all of them, not per
 *  exchange. An exchange that finds no room is forwarded whole but not copied, and never judged. */
export interface CopyRoom {
  /** Whether a new exchange may be copied at all: asked before anything of it is copied or mapped. */
  open(): boolean;
  /** Takes `bytes` more for copies; false, taking nothing, when that would pass the bound. */
  take(bytes: number): boolean;
  /** Gives back bytes taken (a copy dropped, or judged). */
  give(bytes: number): void;
  /** Whether it is closed to new exchanges for want of bytes alone (copies in flight giving theirs
   *  back would open it), not for its count or for having no judge. Absent: never so. */
  short?(): boolean;
}

/** An exchange as the forwarding thread hands it over: raw header lists and copied bytes, nothing
 *  mapped, decoded or hashed (that is the judge's work, in `judgeable`, on the judge's thread). */
export interface ForwardedExchange {
  readonly id: string;
  /** When it began (ms since the epoch): written as a date by `judgeable` (1 µs a request on this thread). */
  readonly startedAt: number;
  readonly durationMs: number;
  readonly method: string;
  /** The URL at the target, as forwarded. */
  readonly url: string;
  /** The path the client asked for (the exchange's title names it). */
  readonly path: string;
  /** The request's headers as forwarded (Host naming the target, the hop-by-hop ones made for this
   *  hop), as its URL is the one forwarded: a replay of it sends what the target received. */
  readonly requestHeaders: readonly string[];
  /** Absent when the request had no body, one over the body cap (then `requestBodyLeftOut`), or one
   *  not whole when its answer was (then `requestBodyUnfinished`). */
  readonly requestBody?: Uint8Array;
  /** The request's body went past the body cap: forwarded whole, not copied. */
  readonly requestBodyLeftOut?: true;
  /** The request's body was still coming when its answer was whole (the target answered first):
   *  forwarded whole, but what was copied by then is not the body, so none is handed over. */
  readonly requestBodyUnfinished?: true;
  readonly answer?: {
    readonly status: number;
    /** The reason phrase as the target sent it. */
    readonly statusMessage?: string;
    readonly rawHeaders: readonly string[];
    /** Absent when the body went past the body cap (then `pastCap`; it was forwarded whole all the
     *  same) or, defensively, was not copied (an exchange whose copy was dropped is not handed over). */
    readonly body?: Uint8Array;
    readonly pastCap?: true;
  };
  readonly error?: TransportError;
  /** Bytes of the copies it holds: taken from the room, given back once judged. */
  readonly held: number;
}

/** Why an exchange was forwarded but not judged. */
export type Unjudged =
  /** No room for its copies (or no judge). */
  | 'room'
  /** Its client hung up before its answer was whole (what was copied of it is dropped). */
  | 'client-gone'
  /** Its client had not sent the request's body whole --timeout after its head, the proxy waiting on
   *  it, and its room was needed. */
  | 'slow-request'
  /** Its client had not read the answer whole --timeout after its first byte, the proxy waiting on
   *  it, and its room was needed. */
  | 'slow-answer'
  /** Its client was sending the request's body slower than would have it whole --timeout after its
   *  head, the proxy waiting on it, and its room was needed. */
  | 'lagging-request'
  /** Its client was reading the answer slower than would have it whole --timeout after its first
   *  byte, the proxy waiting on it, and its room was needed. */
  | 'lagging-answer'
  /** Its client had not sent the request's body whole `bodyDeadline` after its head, the proxy
   *  waiting on it: answered 408 and its connection closed, whether its room was needed or not. */
  | 'request-timeout'
  /** Its client kept it waiting (its body not coming, its answer not read) when a new connection
   *  came at the bound of open connections, and had moved fewest bytes per second lately of those
   *  that did: its connection was closed for the new one (lib/http/connection-guard.ts). */
  | 'stalled-at-bound'
  /** The target closed its connection while the request's body was still being sent to it (EPIPE,
   *  ECONNRESET): a target refusing an upload it will not read answers early (a 413) and closes, and
   *  the reset loses that answer (RFC 9112 9.6). Whatever it answered is not known. */
  | 'upload-cut'
  /** Its client's request body could not be read (its chunked framing broken): the client answered
   *  400, the request to the target cut short. */
  | 'bad-body';

export interface ProxyOptions {
  /** The deployment every request is forwarded to (its path is the prefix of every forwarded path). */
  readonly target: string;
  readonly port: number;
  readonly host?: string;
  /** A body longer than this is forwarded whole, but copied only this far (and the exchange says so). */
  readonly maxBodyBytes: number;
  /** No answer headers from the target within this time: 504 to the client (a body, once it
   *  streams, is never cut: the client decides how long it waits, as it would without the proxy).
   *  Also the pace a client owes: one that keeps the proxy waiting past it, or falls behind the pace
   *  that has its body whole within it, loses its exchange's copies to any exchange that finds no
   *  room (then it is not judged: `slow-request`, `slow-answer`, `lagging-request`, `lagging-answer`). */
  readonly timeoutMs: number;
  /** Where copies are made; without one, every exchange is copied (each up to `maxBodyBytes`). */
  readonly room?: CopyRoom;
  /** Called with each finished exchange that was copied whole, after its answer reached the client. */
  readonly onExchange: (ex: ForwardedExchange) => void;
  /** Called once for each exchange forwarded but not judged, saying why: with no room it was not
   *  copied; a slow client's is called as soon as its copies gave their room back to another
   *  exchange, while its bytes may still flow. */
  readonly onUnjudged?: (why: Unjudged) => void;
  /** The bounds on client connections (lib/http/connection-guard.ts): open at most (default: from
   *  the descriptor limit, two each) and the time for a request head (default HEAD_MS); and the time
   *  for a request's body after its head (`bodyDeadline`, from `bodyMs`, default BODY_MS). */
  readonly connections?: { readonly max?: number; readonly headMs?: number; readonly bodyMs?: number };
}

export interface RunningProxy {
  readonly url: string;
  readonly port: number;
  /** Exchanges still being forwarded. */
  readonly inFlight: () => number;
  /** Requests refused with 400 because they could not be forwarded framed as they came. */
  readonly refused: () => number;
  /** Requests refused with 503, the heads being forwarded past MAX_HEADS_IN_FLIGHT. */
  readonly busyRefused: () => number;
  /** Exchanges holding room whose client the proxy waits on now, behind its pace by more than the
   *  grace: the next exchange that finds no room takes theirs. */
  readonly lagging: () => number;
  /** Client connections open now, and those closed or refused with no whole request: no exchange
   *  (nothing was forwarded), so never counted as unjudged. */
  readonly connections: () => ConnectionCounts;
  /** The time a client has for a request's body after its head (`bodyDeadline`). */
  readonly bodyMs: number;
  /** One line on the connections closed or refused with no whole request, or undefined. */
  readonly connectionsNote: () => string | undefined;
  /** Informational answers (1xx) from the target not passed on (see MAX_INFORMATIONAL). */
  readonly informationalDropped: () => number;
  /** Of those, the 100s a client awaited that held a character HTTP forbids: Node's own
   *  `100 Continue` went to the client in their place. */
  readonly informationalReplaced: () => number;
  /** Stops accepting; waits up to `graceMs` for the exchanges in flight, then cuts them. */
  close(graceMs: number): Promise<void>;
}

/** Heads larger than Node's 16 KiB default pass (a long cookie, a big token): a proxy must not refuse
 *  what the target would take, nor drop an answer the client would read. 64 KiB: above Kestrel's
 *  32 KB (MaxRequestHeadersTotalSize), nginx's 4 × 8 KB buffers and Envoy's 60 KiB
 *  (max_request_headers_kb); each connection may hold two unfinished (its request's, its answer's),
 *  which bounds the connections (HEADS_BEING_READ). */
export const MAX_HEADER_BYTES = 64 * 1024;

/** How long a client has for a whole request head (Node's headersTimeout; the guard's bound). */
const HEAD_MS = 60_000;
/** How long a client has for a request's body after its head (at least --timeout, see `bodyDeadline`). */
export const BODY_MS = 60_000;
/** The time a client has to send a request's body whole after its head, the time the target held it
 *  back not counted: past it, 408 and the connection closed. At least --timeout, so a client that
 *  keeps the pace --timeout asks of it (see `lagMs`) is never cut. */
export const bodyDeadline = (timeoutMs: number, bodyMs = BODY_MS): number => Math.max(bodyMs, timeoutMs);

/** How long an idle client connection is kept between requests. */
const KEEP_ALIVE_MS = 5_000;

/** Informational answers (1xx) passed on before one answer, at most (a browser heeds the first
 *  early hint): each is written at once, whether the client reads or not, so without a bound they
 *  piled up unsent. */
export const MAX_INFORMATIONAL = 10;

/** Pipelined requests waiting on one connection for the answer before them, at most: past this the
 *  connection is cut (a client that reads its answers never has so many unanswered). */
const MAX_PIPELINED = 100;
/** Bytes of the heads of requests waiting their turn on one connection, and on all, at most: past
 *  either, the connection is cut, as past MAX_PIPELINED (nothing of those waiting was forwarded). */
const MAX_WAITING_HEAD_BYTES = 1024 * 1024;
const MAX_ALL_WAITING_HEAD_BYTES = 32 * 1024 * 1024;
/** Bytes of the heads of requests being forwarded, on all connections, at most: past it a request is
 *  answered 503 and nothing of it forwarded. A thousand connections each forwarding a head of 250 KiB
 *  (its body trickled) took the proxy to 1 GB: a head in flight is held about four times over (as
 *  read, as fields, as written to the target, for judging). */
export const MAX_HEADS_IN_FLIGHT = 32 * 1024 * 1024;
/** A request head's bytes as Node holds them: its target, method and every field's name and value. */
const headBytes = (req: IncomingMessage): number => req.rawHeaders.reduce((n, h) => n + h.length, (req.url?.length ?? 0) + (req.method?.length ?? 0));

/** Hop-by-hop headers: they describe one connection, so each hop makes its own (RFC 9110 7.6.1). */
// (Trailer is not one: RFC 9110 6.6.2 makes it end to end, and the trailers it announces are relayed.)
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'transfer-encoding', 'upgrade']);
/** Never removed because `Connection` names them: a message is forwarded framed as it came (removing
 *  Content-Length would send a body unframed, for the next hop to read as another request). */
const FRAMING = new Set(['content-length', 'host']);

/** What forwarding needs of a raw header list ([name, value, name, value, …], as received), read in
 *  one pass: the end-to-end headers in order and case (the hop-by-hop ones left out, Host replaced
 *  when asked), and the message's framing. No header object is built for it. */
export interface Head {
  readonly headers: string[];
  /** Transfer-Encoding, repeats joined with ", " (as Node joins them). */
  readonly te?: string;
  /** The first Content-Length (Node's parser has refused two that differ). */
  readonly length?: string;
  /** Whether `headers` has a Trailer field. */
  readonly trailer: boolean;
}

/** What headOf reads of a header name, by its lower case: one of HOP_BY_HOP, or one of the framing
 *  fields it records. */
const enum Named { Other, HopByHop, Host, TransferEncoding, ContentLength, Connection, Trailer }
const NAMED = new Map<string, Named>([
  ...[...HOP_BY_HOP].map((n) => [n, Named.HopByHop] as const),
  ['host', Named.Host], ['transfer-encoding', Named.TransferEncoding], ['content-length', Named.ContentLength], ['connection', Named.Connection], ['trailer', Named.Trailer],
]);
/** The lengths of those names: any other name is none of them, and is not lower-cased (most of a
 *  head's names; a lower case of a name with capitals is a new string each time). */
const NAMED_LENGTHS = new Set([...NAMED.keys()].map((n) => n.length));
const namedAs = (name: string): Named => (NAMED_LENGTHS.has(name.length) ? NAMED.get(name.toLowerCase()) ?? Named.Other : Named.Other);
/** A Connection value that names no field but one removed anyway (the usual `keep-alive`): nothing more to remove. */
const NAMES_NONE = /^[\t ]*(?:keep-alive)?[\t ]*$/i;

export function headOf(raw: readonly string[], replaceHost?: string): Head {
  const headers: string[] = [];
  let te: string | undefined;
  let length: string | undefined;
  let connection: string[] | undefined;
  let host = false;
  let trailer = false;
  for (let i = 0; i < raw.length; i += 2) {
    const value = raw[i + 1]!;
    switch (namedAs(raw[i]!)) {
      case Named.Other: headers.push(raw[i]!, value); continue;
      case Named.Host: host = true; headers.push(raw[i]!, replaceHost || value); continue;
      case Named.ContentLength: length ??= value; headers.push(raw[i]!, value); continue;
      case Named.Trailer: trailer = true; headers.push(raw[i]!, value); continue;
      case Named.TransferEncoding: te = te === undefined ? value : `${te}, ${value}`; continue;
      case Named.Connection: if (!NAMES_NONE.test(value)) (connection ??= []).push(value); continue;
      case Named.HopByHop: continue;
    }
  }
  // An HTTP/1.0 request may come without Host; it goes on as HTTP/1.1, which requires one (RFC 9112 3.2).
  if (replaceHost && !host) headers.unshift('Host', replaceHost);
  // Names a Connection header lists are hop-by-hop too, wherever they came: a second pass, only for
  // a value that names one (`Connection: keep-alive`, on most requests and answers, names none).
  if (connection) {
    const named = new Set<string>();
    for (const v of connection) {
      for (const n of v.split(',')) {
        const name = n.trim().toLowerCase();
        if (!FRAMING.has(name) && !HOP_BY_HOP.has(name)) named.add(name);
      }
    }
    if (named.size) {
      const kept: string[] = [];
      for (let i = 0; i < headers.length; i += 2) if (!named.has(headers[i]!.toLowerCase())) kept.push(headers[i]!, headers[i + 1]!);
      return { headers: kept, te, length, trailer: trailer && !named.has('trailer') };
    }
  }
  return { headers, te, length, trailer };
}

/** An http(s) absolute form's authority, and the path and query after it as sent. */
const ABSOLUTE_FORM = /^https?:\/\/[^/?]*(.*)$/is;

/** A raw header list without the fields of one (lower-case) name: the list itself when it has none
 *  (no copy for most answers). */
function without(raw: readonly string[], name: string): readonly string[] {
  let i = 0;
  while (i < raw.length && raw[i]!.toLowerCase() !== name) i += 2;
  if (i >= raw.length) return raw;
  const kept = raw.slice(0, i);
  for (; i < raw.length; i += 2) if (raw[i]!.toLowerCase() !== name) kept.push(raw[i]!, raw[i + 1]!);
  return kept;
}

/** The request's target in origin form: an absolute-form request (`GET http://elsewhere/x`) goes
 *  to the configured target like any other, under its path, byte for byte as sent (the URL parser's
 *  `/a/%2e%2e/b` is `/b`: another resource). Undefined for a target that is neither (`http://[::1`,
 *  `ftp://host/x`, `http:x`): it is refused, never forwarded as a path the client did not send. */
function originForm(url: string): string | undefined {
  if (url.startsWith('/') || url === '*') return url;
  const rest = ABSOLUTE_FORM.exec(url)?.[1];
  if (rest === undefined || !URL.canParse(url)) return undefined;
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** A request Node frames only as it came. With neither Content-Length nor Transfer-Encoding, Node
 *  chunks a POST, PUT or PATCH by its method (`Transfer-Encoding: chunked` and an empty chunk): a
 *  bodiless POST reached the target as a chunked upload, which a target refusing those answers 411.
 *  Without either it goes with no body and no framing, as Node sends a GET. */
class AsItCame extends ClientRequest {}
// (Node reads this while it writes the head, in the constructor: only the prototype can answer.)
Object.defineProperty(AsItCame.prototype, 'useChunkedEncodingByDefault', { get: () => false, set: () => undefined });

/** How far behind (ms) the grace lets a client fall before its exchange's room goes, at most: the
 *  stalls of a client that keeps pace (a descheduled reader, a lost packet) stay under it, and a
 *  stalled one holds the room no longer (a tenth of --timeout when that is less). */
const MAX_LAG_GRACE_MS = 1000;

/** A wait on a client's side of the answer this short is its kernel's buffers taking the proxy's
 *  bytes (at memory speed, a chunk past the response's 16 KiB mark each), not the client reading:
 *  neither the wait nor the bytes count towards its pace. So the megabytes those buffers swallow at
 *  first are no credit to a client that reads nothing; a client that keeps up never waits longer.
 *  An ended wait is timed by how long the proxy's thread slept in it (see `longWait`). */
const QUICK_WAIT_MS = 10;

/** An exchange being copied, as the room sees it when it is short. */
interface Holder {
  /** How far its client is behind its pace now (see `lagMs`), -Infinity when the proxy is not
   *  waiting on it (or it holds nothing). */
  lagMs(now: number): number;
  /** Its copies give their room back; it is counted as not judged. */
  giveUp(now: number): void;
}

/** How far (ms) a client is behind the pace that moves `owed` bytes in `allowedMs`, having moved
 *  `moved` of them while the proxy waited on it `waitedMs` in all: the wait, less the time its
 *  bytes earn at that pace (its wait alone when none can earn). Past --timeout (`allowedMs` spent)
 *  it is behind without end. */
function lagMs(waitedMs: number, moved: number, owed: number, allowedMs: number): number {
  if (allowedMs <= 0) return Infinity;
  return owed > 0 ? waitedMs - (Math.max(0, moved) * allowedMs) / owed : waitedMs;
}

/** Room for every exchange: without a room given, each is copied (up to the body cap). */
const ANY_ROOM: CopyRoom = { open: () => true, take: () => true, give: () => undefined };

/** The buffers a copy gathers its chunks into: from 1 KiB, growing with the body, to 64 KiB. */
const MIN_GATHER_BYTES = 1024;
const GATHER_BYTES = 64 * 1024;

/** A chunk of a body this large goes on as it came; smaller ones are gathered first. */
const RELAYED_AS_IS_BYTES = 1024;

/**
 * Relays `from`'s body into `to` as pipe does (pausing `from` whenever `to` is full, not ending `to`),
 * but gathers chunks smaller than RELAYED_AS_IS_BYTES into buffers of GATHER_BYTES. Written as they
 * came, each chunk of a body Node chunks again is four buffers queued on the socket, and more: a
 * target answering in one-byte chunks cost the proxy about 45 MB per such answer in flight (834 MB
 * for 16 of 1 MiB, 187 gathered), a client uploading so about 120 MB more than one uploading the
 * same body in one piece (57 gathered). What is gathered goes on when its
 * buffer is full, once the read that brought it is parsed (an immediate), or at `flush` (the body's
 * end, before its trailers). A body that comes in one small chunk goes on as that chunk, uncopied.
 * After `stop` nothing more is relayed (what was gathered is dropped).
 */
function relayGathered(from: Readable, to: Writable): { readonly flush: () => void; readonly stop: () => void } {
  let first: Buffer | undefined;
  let gather: Buffer | undefined;
  let fill = 0;
  let later: NodeJS.Immediate | undefined;
  let draining = false;
  let stopped = false;
  const write = (b: Buffer) => {
    if (to.write(b) || to.destroyed) return;
    from.pause();
    if (draining) return;
    draining = true;
    to.once('drain', () => { draining = false; if (!stopped) from.resume(); });
  };
  const drop = () => {
    if (later) clearImmediate(later);
    later = undefined;
    first = gather = undefined;
    fill = 0;
  };
  const flush = () => {
    const b = first ?? gather?.subarray(0, fill);
    drop();
    if (b?.length) write(b);
  };
  from.on('data', (chunk: Buffer) => {
    if (stopped) return;
    if (chunk.length >= RELAYED_AS_IS_BYTES) { flush(); write(chunk); return; }
    if (!first && !fill) { first = chunk; later = setImmediate(flush); return; }
    if (fill + chunk.length > GATHER_BYTES) flush();
    if (!gather) {
      gather = Buffer.allocUnsafeSlow(GATHER_BYTES);
      if (first) { fill = first.copy(gather); first = undefined; }
      later ??= setImmediate(flush);
    }
    fill += chunk.copy(gather, fill);
  });
  return { flush, stop: () => { stopped = true; drop(); } };
}

/** Copies a body up to a cap, each byte taken from the shared room first. Past the cap it remembers
 *  only that there was more (`over`); with no room left it drops its copy (`dropped`). A body of
 *  known length is copied into one buffer taken whole at the start. */
class BodyCopy {
  /** Buffers of its own, each full but the last (`fill` bytes of it): a buffer per chunk received was
   *  an object per byte of an answer in one-byte chunks (1.7 GB for four exchanges). */
  private chunks: Uint8Array[] = [];
  private fill = 0;
  private one: Uint8Array | undefined;
  private size = 0;
  private taken = 0;
  over = false;
  dropped = false;
  /** Its exchange is over: nothing more is copied (see `seal`). */
  private sealed = false;
  /** Bytes copied so far. */
  get copied(): number { return this.size; }
  constructor(private readonly cap: number, private readonly room: CopyRoom, length?: number) {
    if (length === undefined || length === 0) return;
    if (length > cap) { this.over = true; return; }
    if (!room.take(length)) { this.dropped = true; return; }
    this.taken = length;
    this.one = new Uint8Array(length);
  }
  add(chunk: Buffer): void {
    if (this.over || this.dropped || this.sealed) return;
    if (this.size + chunk.length > this.cap) { this.over = true; this.release(); return; }
    if (this.one && this.size + chunk.length <= this.one.length) { this.one.set(chunk, this.size); this.size += chunk.length; return; }
    if (!this.room.take(chunk.length)) { this.dropped = true; this.release(); return; }
    // Asking made room by dropping the copies of overdue exchanges, this one's among them.
    if (this.dropped) { this.room.give(chunk.length); return; }
    this.taken += chunk.length;
    this.size += chunk.length;
    // Copied (a chunk may be a view of a larger buffer, which it would keep alive) into buffers that
    // grow with the body, to GATHER_BYTES each.
    for (let at = 0; at < chunk.length;) {
      let last = this.chunks[this.chunks.length - 1];
      if (!last || this.fill === last.length) {
        this.chunks.push(last = new Uint8Array(Math.min(GATHER_BYTES, Math.max(MIN_GATHER_BYTES, this.size))));
        this.fill = 0;
      }
      const n = Math.min(last.length - this.fill, chunk.length - at);
      last.set(chunk.subarray(at, at + n), this.fill);
      this.fill += n;
      at += n;
    }
  }
  /** The bytes copied, in one buffer of their own (transferable to the judge's thread). */
  get bytes(): Uint8Array {
    if (this.one && !this.chunks.length) return this.size === this.one.length ? this.one : this.one.slice(0, this.size);
    const out = new Uint8Array(this.size);
    let at = 0;
    if (this.one) { out.set(this.one.subarray(0, Math.min(this.size, this.one.length))); at = Math.min(this.size, this.one.length); }
    this.chunks.forEach((c, i) => { const n = i === this.chunks.length - 1 ? this.fill : c.length; out.set(c.subarray(0, n), at); at += n; });
    this.one = out;
    this.chunks = [];
    return out;
  }
  /** Gives its room back for good: nothing more is copied (its exchange will not be judged). */
  drop(): void {
    this.dropped = true;
    this.release();
  }
  /** Copies nothing more, keeping what it holds: a body that still comes once its exchange is over
   *  (an upload going on after its answer was whole) is forwarded, not copied. Its room was handed
   *  over with the exchange (or given back): taken after that, nothing gave it back. */
  seal(): void { this.sealed = true; }
  /** Bytes taken from the room (given back by whoever judges, or by `release`). */
  get held(): number { return this.taken; }
  release(): void {
    this.sealed = true;
    this.room.give(this.taken);
    this.taken = 0;
    this.chunks = [];
    this.one = undefined;
  }
}


/** The exchange a forwarded one is judged as: headers mapped, the body decoded from the content
 *  codings its client offered within the cap, and hashed. Runs on the judge's thread, never the forwarding one. */
/** An exchange's target as forwarded (the target's origin, then the path), kept as sent (unspellableTarget). */
function asSentOf(url: string): { asSent: { target: string; origin: string } } {
  const { origin } = new URL(url);
  return { asSent: { target: url.slice(origin.length), origin } };
}

export function judgeable(fx: ForwardedExchange, maxBodyBytes: number): Exchange {
  const reqBody = fx.requestBody?.length ? Buffer.from(fx.requestBody.buffer, fx.requestBody.byteOffset, fx.requestBody.byteLength) : undefined;
  const base = {
    id: fx.id, title: `${fx.method} ${fx.path.split('?')[0]} through the proxy`, origin: { source: 'proxy', vouched: false } as const,
    request: { method: fx.method, url: fx.url, ...(fx.path === '*' ? { asSent: { target: '*', origin: fx.url } } : unspellableTarget(fx.path) ? asSentOf(fx.url) : {}), headers: exchangeHeaders(rawPairs(fx.requestHeaders)), rawHeaders: fx.requestHeaders, ...(reqBody ? requestBodyOf(reqBody) : {}), ...(fx.requestBodyLeftOut ? { bodyLeftOut: true as const } : {}), ...(fx.requestBodyUnfinished ? { bodyUnfinished: true as const } : {}) },
    startedAt: new Date(fx.startedAt).toISOString(), durationMs: fx.durationMs,
  };
  if (fx.error || !fx.answer) return { ...base, error: fx.error ?? { kind: 'other', message: 'no answer' } };
  const { status, statusMessage, rawHeaders, body: copied } = fx.answer;
  const headers = exchangeHeaders(rawPairs(rawHeaders));
  // A body past the cap, or not copied, is not kept; its head is (the checks of the head judge it, the reports show it).
  const answerHead = { status, headers, ...(statusMessage ? { reason: statusMessage } : {}), rawHeaders };
  if (!copied) return { ...base, answerHead, error: fx.answer.pastCap ? bodyPastCap(maxBodyBytes, ' (forwarded whole)') : { kind: 'other', message: 'the response body was not copied for judging' } };
  const bytes = Buffer.from(copied.buffer, copied.byteOffset, copied.byteLength);
  // Recorded as a probe's answer is (decodedAnswer): decoded from the codings the client offered, sized
  // and hashed as the client got it (a replay gets those bytes).
  const d = decodedAnswer(status, headers, bytes, statusMessage, rawHeaders, base.request.headers['accept-encoding'], maxBodyBytes);
  if ('pastCapHow' in d) return { ...base, answerHead, error: bodyPastCap(maxBodyBytes, `${d.pastCapHow} (forwarded whole)`) };
  return { ...base, response: d };
}

/** A failed forward as the exchange records it. */
function transportError(e: NodeJS.ErrnoException, target: string): TransportError {
  const where = new URL(target).host;
  switch (e.code) {
    case 'ECONNREFUSED': return { kind: 'refused', message: `connection refused by ${where}` };
    case 'ENOTFOUND': case 'EAI_AGAIN': return { kind: 'dns', message: `host not found: ${new URL(target).hostname}` };
    case 'ECONNRESET': return { kind: 'reset', message: `the connection to ${where} was reset` };
    case 'ETIMEDOUT': return { kind: 'headers-timeout', message: `no answer from ${where} in time` };
    default:
      if (e.code?.startsWith('HPE_')) return { kind: 'other', message: `the answer of ${where} is not HTTP/1.1 that can be read (${e.code})` };
      return e.code?.startsWith('ERR_TLS') || e.code?.includes('CERT') ? { kind: 'tls', message: `TLS failure with ${where}: ${e.code}` } : { kind: 'other', message: `cannot forward to ${where}: ${e.code ?? 'error'}` };
  }
}

/** Why a request cannot be forwarded framed exactly as it came (then it is refused with 400), or
 *  undefined. Node's parser has refused already what HTTP/1.1 forbids (Content-Length beside
 *  Transfer-Encoding, two Content-Lengths); left is a coding the proxy would have to undo. */
function unframeable(te: string | undefined): string | undefined {
  if (te !== undefined && te.trim().toLowerCase() !== 'chunked') return 'a request body in a Transfer-Encoding other than chunked alone cannot be forwarded as it came';
  return undefined;
}

/** A character HTTP forbids in a reason phrase or a field value (Node's writeHead refuses it too). */
const FORBIDDEN_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/** An informational answer's head as the target sent it (status, reason phrase, fields in their
 *  order, case and repeats), less its hop-by-hop fields, in latin1 as Node's parser read it; undefined
 *  when its reason phrase or a field holds a character HTTP forbids there. */
function informationalHead(status: number, reason: string, raw: readonly string[]): string | undefined {
  if (FORBIDDEN_CHAR.test(reason)) return undefined;
  let head = `HTTP/1.1 ${status} ${reason}\r\n`;
  const { headers } = headOf(raw);
  for (let i = 0; i < headers.length; i += 2) {
    if (FORBIDDEN_CHAR.test(headers[i + 1]!)) return undefined;
    head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  }
  return `${head}\r\n`;
}

/** What a relay step that Node refused says, in one line without the target's words. */
function relayCause(where: string, step: string, e: unknown, answer?: IncomingMessage): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code ?? 'error';
  if (code === 'ERR_HTTP_INVALID_STATUS_CODE' && answer) return `cannot relay the answer of ${where}: its status ${answer.statusCode} is not a three-digit code of 100-999`;
  const odd = answer && FORBIDDEN_CHAR.exec(answer.statusMessage ?? '');
  if (code === 'ERR_INVALID_CHAR' && odd) return `cannot relay the answer of ${where}: its reason phrase holds the control character 0x${odd[0].charCodeAt(0).toString(16).padStart(2, '0')}`;
  return `cannot relay the answer of ${where}: ${step} (${code})`;
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const target = new URL(options.target);
  // (Once: URL's origin getter makes a new string each time it is read.)
  const origin = target.origin;
  const prefix = target.pathname.replace(/\/$/, '');
  // The target's address once, as options: no URL is parsed per request.
  const to = { protocol: target.protocol, hostname: target.hostname.replace(/^\[|\]$/g, ''), port: target.port || undefined, agent: target.protocol === 'https:' ? httpsAgent : httpAgent };
  const given = options.room ?? ANY_ROOM;
  const T = options.timeoutMs;
  const grace = Math.min(MAX_LAG_GRACE_MS, T / 10);
  const bodyDue = bodyDeadline(T, options.connections?.bodyMs);
  // Exchanges whose client has kept the proxy waiting past --timeout (see `watchClient`): their
  // copies give their room back when another exchange finds none, before it is refused. (When the
  // room is short of count, not bytes, that frees nothing for it; it is rare and costs only them.)
  const overdue = new Set<() => void>();
  // Every exchange being copied, for the lagging ones among them (see `lagMs`): a set entry each,
  // looked through only when the room is short of bytes, never per chunk.
  const holders = new Set<Holder>();
  const laggingNow = (now: number) => {
    const found: { lag: number; holder: Holder }[] = [];
    for (const holder of holders) { const lag = holder.lagMs(now); if (lag > grace) found.push({ lag, holder }); }
    return found;
  };
  /** Gives back room until `fits` (which takes it), first the overdue exchanges' all at once, as
   *  before, then the lagging ones', the furthest behind first, only as many as needed. */
  const reclaim = (fits: () => boolean, bytesShort: boolean): boolean => {
    if (overdue.size) {
      for (const giveUp of [...overdue]) giveUp();
      if (fits()) return true;
    }
    if (!bytesShort || !holders.size) return false;
    const now = performance.now();
    for (const { holder } of laggingNow(now).sort((a, b) => b.lag - a.lag)) {
      holder.giveUp(now);
      if (fits()) return true;
    }
    return false;
  };
  const room: CopyRoom = {
    open: () => given.open() || reclaim(() => given.open(), given.short?.() ?? false),
    take: (bytes) => given.take(bytes) || reclaim(() => given.take(bytes), true),
    give: (bytes) => given.give(bytes),
  };
  let n = 0;
  let active = 0;
  let refused = 0;
  let busyRefused = 0;
  let informationalDropped = 0;
  let informationalReplaced = 0;

  // A connection that sent a request refused: whatever it sent after that (already parsed, as
  // pipelined requests are) is never forwarded; the connection closes after the 400.
  const closing = new WeakSet<Socket>();
  /** Connections that sent a request asking to upgrade (asksUpgrade): closed after its answer. */
  const upgraded = new WeakSet<Socket>();
  const refuse = (req: IncomingMessage, res: ServerResponse, why: string) => {
    refused++;
    closing.add(req.socket);
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end(`conformance proxy: ${why}\n`);
  };

  // Each connection's exchange in progress, for the guard at its bound: whether its client keeps it
  // waiting, and its count as not judged when the guard closes it.
  const current = new WeakMap<Socket, { stalled(): boolean; closing(): void; from(): number | undefined; malformed(): boolean }>();
  const stalls: Stalls = {
    stalled: (socket) => current.get(socket)?.stalled() ?? false,
    closing: (socket) => current.get(socket)?.closing(),
    from: (socket) => current.get(socket)?.from(),
  };

  const handle = (req: IncomingMessage, res: ServerResponse, expects: boolean) => {
    // Behind a refusal: neither forwarded nor answered. Node closes the connection once the refusal
    // is written (its Connection: close), and its end ends this exchange (`orphaned`); destroyed here,
    // the connection went before the refusal was flushed, the client never told why.
    if (closing.has(req.socket)) { if (res.socket) res.socket.destroySoon(); return; }
    // Behind a request asking to upgrade: neither forwarded nor answered; Node closes the connection
    // once that request's answer is written (its shouldKeepAlive), which may still be coming.
    if (upgraded.has(req.socket)) return;
    // RFC 9112 3.2: a server answers 400 to an HTTP/1.1 request without Host. Refused here, not by
    // Node's server (requireHostHeader): its 400 left the requests pipelined behind to come here,
    // forwarded, their answers queued behind one that closed the connection, never counted.
    if (req.httpVersion === '1.1' && req.headers.host === undefined) { refuse(req, res, 'an HTTP/1.1 request without a Host field (RFC 9112 3.2) is not forwarded'); return; }
    // Asking to upgrade: Node read nothing past its head in its read (asksUpgrade). Without a body it
    // is forwarded as any (Upgrade is hop-by-hop), its connection closed after its answer and nothing
    // behind it forwarded (`upgraded`); a body it declares was never read.
    if (asksUpgrade(req)) {
      if (declaresBody(req)) { refuse(req, res, 'a request asking to upgrade its connection (Connection: upgrade) with a body is not forwarded: its body is not read'); return; }
      upgraded.add(req.socket);
      res.shouldKeepAlive = false;
    }
    const head = headOf(req.rawHeaders, target.host);
    const bad = unframeable(head.te);
    if (bad) { refuse(req, res, bad); return; }
    const path = originForm(req.url ?? '/');
    if (path === undefined) { refuse(req, res, 'a request target that is neither a path nor an absolute URL cannot be forwarded as it came'); return; }
    // Under the target's path, but `OPTIONS *` (the server as a whole) stays `*`: `/api*` is no request target.
    const forwarded = path === '*' ? '*' : `${prefix}${path}`;
    const method = req.method ?? 'GET';
    // The room is asked first: an exchange it has none for is forwarded as a bare forwarder would,
    // and nothing of it is copied, named or listened to beyond what forwarding needs (a body is timed: see `watchBody`).
    let copying = room.open();
    const requestCopy = copying ? new BodyCopy(options.maxBodyBytes, room, head.te === undefined && head.length !== undefined ? Number(head.length) : undefined) : undefined;
    // Framed as it came: a chunked body chunked again (the hop's own Transfer-Encoding was removed
    // with the other hop-by-hop headers), a Content-Length kept; no body, no framing.
    const headers = head.headers;
    if (head.te !== undefined) headers.push('Transfer-Encoding', 'chunked');
    let upstream: ClientRequest;
    try {
      // (Each option named, not `{ ...to, … }`: Node took such a spread object some times slower, 4 µs a request.)
      upstream = new AsItCame({ protocol: to.protocol, hostname: to.hostname, port: to.port, agent: to.agent, setHost: false, method, path: forwarded, maxHeaderSize: MAX_HEADER_BYTES, headers: headers as unknown as OutgoingHttpHeaders });
      // An answer's every header too (its head is bounded by MAX_HEADER_BYTES), as for requests.
      upstream.maxHeadersCount = 0;
    } catch (e) {
      // A head Node's parser took but its client will not write (a control character in a header).
      requestCopy?.release();
      refuse(req, res, `the request cannot be forwarded as it came (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
      return;
    }
    active++;
    const seq = ++n;
    const hasBody = head.te !== undefined || Number(head.length) > 0;
    const startedAt = copying ? Date.now() : 0;
    const t0 = copying || hasBody ? performance.now() : 0;
    let finished = false;
    let answerCopy: BodyCopy | undefined;
    // A slow client costs judging its own exchange, never everyone's. Copies share one room across
    // every exchange, and an answer is never cut (its client decides how long it reads), so a few
    // clients asking for answers at the cap and never reading them held the whole room as long as
    // they liked, and all other traffic went unjudged. Two rules give room back when another
    // exchange finds none (before it is refused), and count the exchange as not judged; its bytes
    // flow on as before, nothing more is kept for it, and while nobody needs the room it is judged
    // as any other. (1) Overdue: its client kept the proxy waiting past --timeout (a request body not
    // whole that long after its head, the target taking it as fast as it comes; an answer not read
    // whole that long after its first byte, the client's side full or the target done). That alone
    // let a peer hold the room by replacing each stalled exchange just before --timeout. So (2)
    // lagging: the proxy is waiting on its client now (the target keeping up with the upload; the
    // answer paused for the client's full side) and the client is behind the pace that has its body
    // whole within --timeout by more than a grace, counting only the time the proxy waited on it
    // (a slow target is not the client's doing) and the bytes it moved as credit. An answer's pace
    // is counted from its first wait: the bytes the kernel's buffers swallow before it are no sign
    // the client reads; nor, ever, are the first bytes of it all those buffers can take (`unread`):
    // a kernel pausing mid-take (an ACK delayed) then taking megabytes more credited a peer reading
    // none with them, and an honest slow upload lost its room in its place. The furthest behind
    // goes first, only as many as the room needs; a client that keeps pace (it will have its body
    // whole in --timeout) keeps its room, a stalled one holds it for the grace. (Not a share of the room per connection or address: a hostile peer opens as
    // many connections as it likes, and clients behind one address would share one share.)
    let watch: NodeJS.Timeout | undefined;
    let counted = false;
    /** Its client hung up while it was being copied for judging. */
    let hungUp = false;
    let answering: IncomingMessage | undefined;
    /** Set once overdue: takes it out of `overdue` when it ends first. */
    let forget: (() => void) | undefined;
    /** Its copies give their room back for good, and it is counted as not judged. */
    const giveUp = (why: Unjudged) => {
      if (counted) return;
      forget?.();
      holders.delete(holder);
      copying = false;
      counted = true;
      requestCopy?.drop();
      answerCopy?.drop();
      options.onUnjudged?.(why);
    };
    const overdueAs = (why: Unjudged) => {
      const go = () => giveUp(why);
      overdue.add(go);
      forget = () => overdue.delete(go);
    };
    // The pace its client owes: for the request, from its head, less the time the target held the
    // upload back (`blocked`); for the answer, from the start of the first wait on the client that
    // was not a quick one (`paceFrom`, the bytes moved by then `movedThen`), with the time of such
    // waits in all (`waited`; the one now began at `waitStart`, `waitStartMoved` moved by then).
    let blocked = 0;
    let blockedSince = 0;
    /** The target has taken what it held back: that wait is counted as the target's. */
    const unblocked = () => { if (blockedSince) { blocked += performance.now() - blockedSince; blockedSince = 0; } };
    let answerAt = 0;
    let paceFrom = 0;
    let movedThen = 0;
    let waited = 0;
    let waitStart = 0;
    let waitStartMoved = 0;
    /** The thread's busy clock at `waitStart` (see `longWait`). */
    let waitStartBusy = 0;
    // The same two moments in its socket's bytes (both ways), for the guard (`Stalls.from`), and its
    // bytes when the answer began.
    let waitStartSocket = 0;
    let socketThen = 0;
    let answerSocket: number | undefined;
    /** Its client waits for the target's 100 (Continue) before its body: the target holds it back. */
    let awaiting = expects && hasBody;
    const holder: Holder = {
      lagMs: (now) => {
        if (finished || !copying) return -Infinity;
        if (answering) {
          if (!answerCopy?.held || !waitStart) return -Infinity;
          const wait = now - waitStart >= QUICK_WAIT_MS ? now - waitStart : 0;
          if (!paceFrom && !wait) return -Infinity;
          const from = paceFrom || waitStart;
          // Never credit for what all its kernels' buffers can take of it (`unread`, as for the guard).
          const then = Math.max(unread, paceFrom ? movedThen : waitStartMoved);
          return lagMs(waited + wait, answerCopy.copied - res.writableLength - then, answerCopy.held - then, answerAt + T - from);
        }
        if (req.complete || !requestCopy?.held || blockedSince) return -Infinity;
        return lagMs(now - t0 - blocked, requestCopy.copied, requestCopy.held, T);
      },
      giveUp: (now) => giveUp(answering ? (now - answerAt >= T ? 'slow-answer' : 'lagging-answer') : (now - t0 >= T ? 'slow-request' : 'lagging-request')),
    };
    // The proxy waits on the client: for the body while the target takes what comes, or for the
    // client's full side to take the answer. After an early answer, for the rest of the body while
    // it is read (at the target's pace, or dropped: see `uploadOn`), the exchange already counted.
    const mine = {
      stalled: () => (finished ? !req.complete && req.readableFlowing === true : req.complete ? res.headersSent && res.writableNeedDrain : !upstream.writableNeedDrain && !awaiting),
      closing: () => { if (!finished) giveUp('stalled-at-bound'); },
      // Its body could not be read (Node's parser: a broken chunk): a 400 to its client, when its
      // answer has not begun, and the target's request cut short. Whether it was the one at fault.
      malformed: (): boolean => {
        if (finished || req.complete || res.headersSent) return false;
        giveUp('bad-body');
        clearTimeout(noAnswer);
        upstream.destroy();
        closing.add(req.socket);
        res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
        res.end('conformance proxy: the request\'s body could not be read (its chunked framing is broken); what came of it was forwarded, then cut\n');
        done({});
        return true;
      },
      // Its answer's first wait on the client that was not a quick one (the one now, once it is not),
      // and never before all its kernels' buffers can take of the answer (`unread`): a wait is no end
      // of that take when the client's kernel pauses in it (an ACK delayed 57 ms, the thread asleep)
      // and takes megabytes more at once after, which no timing tells from a client reading a burst;
      // but a client reading nothing is never taken more than those buffers hold.
      from: () => answerSocket === undefined || finished ? undefined : Math.max(answerSocket + unread, paceFrom ? socketThen : waitStart && performance.now() - waitStart >= QUICK_WAIT_MS ? waitStartSocket : 0),
    };
    current.set(req.socket, mine);
    const watchClient = () => {
      watch = setTimeout(() => {
        if (finished || !copying || requestCopy?.dropped || answerCopy?.dropped || forget) return;
        // (A request body copied past the cap, or not begun, holds no room: nothing to give back.)
        if (!req.complete) { if (requestCopy?.held && !upstream.writableNeedDrain) { overdueAs('slow-request'); return; } }
        else if (answering && (res.writableNeedDrain || answering.complete)) { overdueAs('slow-answer'); return; }
        watchClient();
      }, options.timeoutMs);
    };
    // A request body whole within `bodyDue` of its head, the time the target held it back not counted
    // (its own pace): else 408 and the connection closed, the exchange counted as not judged. Without
    // it a client trickling a body (a byte every 5 s) held its connection, and the guard never closes
    // one with a request in progress, so a few dozen held every slot and honest clients were refused.
    let bodyWatch: NodeJS.Timeout | undefined;
    const watchBody = (ms: number) => {
      bodyWatch = setTimeout(() => {
        if (req.complete || failed) return;
        const now = performance.now();
        // A 100 not sent within --timeout is waited for no longer on the target's account (a client
        // need not wait for it, RFC 9110 10.1.1): a target knowing nothing of Expect waits for the
        // body, and a peer sending none held its connection (and every slot) for good.
        if (awaiting && now - t0 >= T) { awaiting = false; if (blockedSince) blocked += Math.max(0, t0 + T - blockedSince); blockedSince = 0; }
        const spent = now - t0 - blocked - (blockedSince ? now - blockedSince : 0);
        // (Held back by the target now: looked at again, no sooner than 100 ms, until it lets go.)
        if (spent < bodyDue) { watchBody(Math.max(bodyDue - spent, 100)); return; }
        // Answered early, the exchange counted: no 408 can follow its answer, the connection is closed.
        if (finished) { closing.add(req.socket); req.socket.destroy(); return; }
        giveUp('request-timeout');
        clearTimeout(noAnswer);
        upstream.destroy();
        closing.add(req.socket);
        if (res.headersSent) res.destroy();
        else {
          res.writeHead(408, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
          res.end(`conformance proxy: the request's body was not whole ${bodyDue / 1000} s after its head\n`);
        }
        done({});
      }, ms);
    };
    const done = (outcome: Pick<ForwardedExchange, 'answer' | 'error'>) => {
      if (finished) return;
      finished = true;
      requestCopy?.seal();
      answerCopy?.seal();
      active--;
      clearTimeout(watch);
      forget?.();
      holders.delete(holder);
      // A body still coming after its answer keeps its deadline and its place for the guard, to its end.
      if (req.complete || req.socket.destroyed) {
        clearTimeout(bodyWatch);
        if (current.get(req.socket) === mine) current.delete(req.socket);
      }
      if (outcome.error) answerCopy?.release();
      if (!copying || !requestCopy || requestCopy.dropped || answerCopy?.dropped) {
        requestCopy?.release();
        answerCopy?.release();
        if (!counted) options.onUnjudged?.(hungUp ? 'client-gone' : 'room');
        return;
      }
      // A body not whole yet (its answer came first, or the exchange ended another way): the part copied
      // is not the body sent, and its room goes back now. Whole once parsed whole and every byte of it
      // passed on (a body parsed but held back by the target's full side is not copied yet).
      const unfinished = !requestCopy.over && !(req.complete && req.readableLength === 0);
      if (unfinished) requestCopy.release();
      const body = requestCopy.over || unfinished ? undefined : requestCopy.bytes;
      options.onExchange({
        id: `proxy.${seq}`, startedAt, durationMs: Math.round(performance.now() - t0), method, url: `${origin}${path === '*' ? '' : forwarded}`, path,
        requestHeaders: headers, ...(body?.length ? { requestBody: body } : {}), ...(requestCopy.over ? { requestBodyLeftOut: true as const } : {}), ...(unfinished ? { requestBodyUnfinished: true as const } : {}), ...outcome, held: requestCopy.held + (answerCopy?.held ?? 0),
      });
    };
    // A relay step Node refuses (a status, reason phrase, header or trailer the parser took but
    // Node will not write): the client gets a 502 naming it, or a cut connection once the answer has
    // begun; the exchange is judged as the target's fault; the proxy goes on serving.
    let failed = false;
    let answered = false;
    /** The answer with no body whose head is held to its end ('204', 'answer to HEAD': see 'response'), named in a parse error's cause. */
    let heldBodiless: string | undefined;
    const relayFailed = (cause: string) => {
      if (failed || finished) return;
      failed = true;
      clearTimeout(noAnswer);
      upstream.destroy();
      try {
        if (res.headersSent) throw new Error('the answer has begun');
        // The reason phrase and the length named: a refused writeHead() has left the target's on the
        // response (its Content-Length cut this line short).
        const line = `conformance proxy: ${cause}\n`;
        res.writeHead(502, 'Bad Gateway', { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(line), connection: 'close' });
        res.end(line);
      } catch {
        res.destroy();
      }
      done({ error: { kind: 'other', message: cause } });
    };
    // A limit on the answer's headers only, from when the request has been sent whole (a slow upload
    // is the client's pace): one timer, not a socket timeout re-armed on every chunk. Once the answer
    // streams, how long it may take is the client's to decide, as it would be without the proxy, and
    // a client that gives up closes the target's side too.
    let noAnswer: NodeJS.Timeout | undefined;
    upstream.on('finish', () => { if (!answered) noAnswer = setTimeout(() => upstream.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), options.timeoutMs); });
    upstream.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(noAnswer);
      if (failed || finished) return;
      if (!answered && !upstream.writableFinished && (e.code === 'EPIPE' || e.code === 'ECONNRESET')) {
        giveUp('upload-cut');
        if (!res.headersSent) {
          res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
          res.end(`conformance proxy: ${target.host} closed the connection while the request's body was being sent to it (${e.code}); an answer it gave before was lost with the connection\n`);
        } else res.destroy();
        done({});
        return;
      }
      const parsed = transportError(e, options.target);
      const error = heldBodiless !== undefined && e.code?.startsWith('HPE_') ? { ...parsed, message: `${parsed.message}: bytes came after the head of its ${heldBodiless}, which has no body (RFC 9112 6.3)` } : parsed;
      if (!res.headersSent) {
        const status = error.kind === 'headers-timeout' ? 504 : 502;
        res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
        res.end(`conformance proxy: ${error.message}\n`);
      } else {
        res.destroy();
      }
      done({ error });
    });
    // Informational answers (1xx) reach an HTTP/1.1 client before the answer as the target sent them
    // (RFC 9110 15.2: a proxy forwards them, a 100 no Expect asked for too; an HTTP/1.0 client gets
    // none). A 101 comes as 'upgrade'. Node's server writes a 1xx only as `100 Continue` (the target's
    // reason and fields lost) and a 103 it rewrites (writeEarlyHints joined repeated Link fields, put
    // Link first, dropped a 103 without one), so the head's bytes go on the client's socket, which the
    // answer's head has not reached yet. Each is written at once, heeding no backpressure: a target
    // sending them without end to a client that reads nothing grew the proxy by 50 MB/s until
    // --timeout. So at most MAX_INFORMATIONAL, none while the client's side is full, and none holding
    // a character HTTP forbids: those are dropped and counted. The one 100 a client waits for before
    // its body is always passed on (see `continued`). They are not part of the exchange: it is the final answer.
    let informationalPassed = 0;
    const takesInformational = req.httpVersionMajor > 1 || req.httpVersionMinor >= 1;
    upstream.on('information', (info) => {
      const awaited = info.statusCode === 100 && awaiting;
      if (info.statusCode === 100) continued();
      if (!takesInformational || res.headersSent || failed || finished || !res.socket) return;
      const head = awaited || (informationalPassed < MAX_INFORMATIONAL && !res.socket.writableNeedDrain) ? informationalHead(info.statusCode, info.statusMessage, info.rawHeaders) : undefined;
      if (head === undefined) {
        informationalDropped++;
        // (Its client would wait on: Node's own `100 Continue` in its place, as the target did answer 100.)
        if (awaited) { res.writeContinue(); informationalReplaced++; }
        return;
      }
      if (!awaited) informationalPassed++;
      // (As writeContinue marks it: Node's server keeps the connection of an expecting client that got a 100.)
      if (info.statusCode === 100) Object.assign(res, { _sent100: true });
      res.socket.write(head, 'latin1');
    });
    // A 101 no request asked for (Upgrade is hop-by-hop, never forwarded): Node's client gives it
    // here, not as a response.
    upstream.on('upgrade', (_answer, socket) => {
      socket.destroy();
      relayFailed(`cannot relay the answer of ${target.host}: its status 101 switches protocols the request never asked for`);
    });
    // Whatever else ends the target's side with no answer and no error: never a client left waiting.
    upstream.on('close', () => { if (!answered) relayFailed(`the connection to ${target.host} closed with no answer`); });
    upstream.on('response', (answer) => {
      answered = true;
      answerSocket = movedBy(req.socket);
      continued();
      clearTimeout(noAnswer);
      if (failed) { answer.resume(); return; }
      uploadOn();
      const back = headOf(answer.rawHeaders);
      // The answer to a HEAD, a 204 and a 304 has no body, whatever its Content-Length says (RFC 9110
      // 9.3.2, 8.6): nothing to copy, never past the cap (a HEAD of a large resource was judged as too large).
      const bodiless = method === 'HEAD' || answer.statusCode === 204 || answer.statusCode === 304;
      // A transfer coding besides chunked (gzip, chunked): Node's client takes the chunks off and leaves
      // the rest coded, and the answer went on re-chunked with no word of it, gzip read as the body
      // (RFC 9112 6.1), while the exchange judged kept the target's header. Refused, as a request's is.
      if (!bodiless && back.te !== undefined && back.te.trim().toLowerCase() !== 'chunked') {
        answer.resume();
        relayFailed(`cannot relay the answer of ${target.host}: its Transfer-Encoding ${JSON.stringify(back.te.slice(0, 80))} is not chunked alone, and the proxy undoes no other transfer coding`);
        return;
      }
      if (copying && !requestCopy!.dropped) {
        answerCopy = new BodyCopy(options.maxBodyBytes, room, bodiless ? 0 : back.te === undefined && back.length !== undefined ? Number(back.length) : undefined);
        // No room for the answer's copy: not judged for want of room (counted so when it ends), and
        // its client's pace no longer matters (a watch would count it as slow once its room was needed).
        if (answerCopy.dropped) copying = false;
      }
      const copy = copying ? answerCopy : undefined;
      // The answer's own --timeout for its client, from its first byte (not the request's).
      if (copy) {
        answering = answer;
        answerAt = performance.now();
        clearTimeout(watch);
        watchClient();
      }
      // The proxy waits on the client from when the answer is paused for its full side to its drain
      // (copied or not: the guard at its bound asks where its kernel's first take ended).
      answer.on('pause', () => {
        if (waitStart || !res.writableNeedDrain) return;
        waitStart = performance.now();
        waitStartBusy = busy?.busyMs() ?? NaN;
        waitStartMoved = (copy?.copied ?? 0) - res.writableLength;
        waitStartSocket = movedBy(req.socket);
      });
      res.on('drain', () => {
        if (!waitStart) return;
        const wait = performance.now() - waitStart;
        if (longWait(wait, waitStartBusy)) {
          if (!paceFrom) { paceFrom = waitStart; movedThen = waitStartMoved; socketThen = waitStartSocket; }
          waited += wait;
        }
        waitStart = 0;
      });
      // Node writes a `Trailer` field only on an answer it chunks and refuses it on any other: one with
      // no body (a HEAD's answer announces its GET's trailers), a Content-Length, or to an HTTP/1.0
      // client. There it announces nothing that can come, and is left out rather than a 502 given.
      const chunked = !bodiless && back.length === undefined && res.useChunkedEncodingByDefault;
      const writeHead = (): boolean => {
        try {
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, (chunked || !back.trailer ? back.headers : without(back.headers, 'trailer')) as unknown as OutgoingHttpHeaders);
          return true;
        } catch (e) {
          answer.resume();
          relayFailed(relayCause(target.host, 'its status line or headers are not ones Node can write', e, answer));
          return false;
        }
      };
      // A bodiless answer's head is held to its end: bytes after it in the same read fail the parse
      // only after this event, and a head already written left the client a cut connection, not a 502.
      if (bodiless) heldBodiless = method === 'HEAD' ? 'answer to HEAD' : String(answer.statusCode);
      else if (!writeHead()) return;
      // A copy for the judge, and how much came, only for an exchange that is copied: one listener per chunk.
      let received = 0;
      if (copy) answer.on('data', (chunk: Buffer) => { copy.add(chunk); received += chunk.length; });
      // The body, then the trailers the target sent after it (a checksum, a status), as they came.
      const relayed = relayGathered(answer, res);
      answer.on('end', () => {
        if (heldBodiless !== undefined) {
          // (Ended another way meanwhile: its parse failed, or its client's body did.)
          if (finished || failed || !writeHead()) return;
          heldBodiless = undefined;
        }
        relayed.flush();
        try {
          if (answer.rawTrailers.length) res.addTrailers([...rawPairs(answer.rawTrailers)] as [string, string][]);
        } catch (e) {
          relayFailed(relayCause(target.host, 'its trailers are not ones Node can write', e));
          return;
        }
        res.end();
        // Its connection closing (`Connection: close`) with the body still coming: see `uploadOn`.
        if (!req.readableEnded && upstream.socket?.writable === false) dropRest();
      });
      // The target cut its answer short (a reset, a closed socket before Content-Length's end): the
      // client's connection is cut the same way, and the exchange is judged as the reset it was.
      answer.on('error', () => res.destroy());
      answer.on('close', () => {
        if (answer.complete || failed) return;
        res.destroy();
        done({ error: { kind: 'reset', message: `the answer from ${target.host} was cut after ${received} bytes of its body` } });
      });
      // Handed over once the client has the whole answer: a judgement never delays what it reads.
      res.on('finish', () => {
        if (failed) return;
        done(copy ? { answer: { status: answer.statusCode ?? 0, statusMessage: answer.statusMessage, rawHeaders: answer.rawHeaders, ...(copy.over ? { pastCap: true as const } : copy.dropped ? {} : { body: copy.bytes }) } } : {});
      });
    });
    if (requestCopy) {
      holders.add(holder);
      req.on('data', (chunk: Buffer) => requestCopy.add(chunk));
    }
    if (hasBody) {
      // The upload paused for the target's full side: the proxy waits on the target, not the client.
      req.on('pause', () => { if (!blockedSince && upstream.writableNeedDrain) blockedSince = performance.now(); });
      upstream.on('drain', unblocked);
      // Both watches wait on a body not whole yet: one that came with its head (most do) is whole
      // once the read that brought it is parsed (an immediate: Node's parser calls back for the head
      // and the body apart, ticks run between), so they are set after that, only for one that is not.
      // So is a head whose body has not come at all sent on its own: Node's client writes a head with
      // its body's first bytes, so the target of a client that sent its head and paused saw an empty
      // connection (its head timeout running) until the body came. With Expect it went at once.
      const headWaits = !awaiting;
      setImmediate(() => {
        if (req.complete || finished || failed) return;
        if (headWaits && !req.readableDidRead && !upstream.destroyed) upstream.flushHeaders();
        if (requestCopy) watchClient();
        watchBody(bodyDue);
      });
    }
    // `Expect: 100-continue`: the client gets the target's 100 (passed on as 'information'), not one
    // Node's server sends at once (a client then uploaded a body the target was refusing; RFC 9110
    // 10.1.1: a proxy forwards the expectation). Until the 100, the answer or the client's first byte
    // of body (it waits no longer), the target holds the body back: that time is not the client's
    // (for --timeout at most: see `watchBody`).
    function continued() {
      if (!awaiting) return;
      awaiting = false;
      unblocked();
    }
    if (awaiting) {
      blockedSince = t0;
      req.once('data', continued);
    }
    // The body, then the trailers the client sent after it (a chunked body's checksum), as they came.
    const upload = relayGathered(req, upstream);
    // A client gone mid-body once its exchange is done (answered early): the target's side goes too,
    // else it waited for the rest for good, a connection and a descriptor held per such client.
    // (The connection's close: a request whose answer has ended is no longer one Node's server ends.)
    const gone = () => { if (finished && !req.complete) upstream.destroy(); };
    req.socket.once('close', gone);
    req.once('end', () => req.socket.off('close', gone));
    // A body still coming once the target has its answer under way (it answered early: a 413, an
    // error, or simply at once). Node's client stops relaying its socket's drain as soon as it has
    // parsed the answer whole, so an upload that had filled the target's side waited for ever (the
    // connection with it). It goes on at the pace the target's socket takes it, to its end: what a
    // target does with a body it answered early is its own business (Node's server reads and drops
    // it). Once the target's side closes, the proxy reads and drops the rest itself: its answer told
    // the client the connection stays, and a server answering before the whole content reads and
    // discards it unless it closes (RFC 9110 10.1.1); the client's next request is then served.
    function uploadOn() {
      const socket = upstream.socket;
      // (Not `complete`: the last of a body parsed whole may still wait in `req` for the drain.)
      if (req.readableEnded || !socket) return;
      // (As the target's drain does below: the time its side was full is not the client's.)
      const relay = () => {
        unblocked();
        if (req.isPaused()) req.resume();
      };
      socket.on('drain', relay);
      socket.once('close', dropRest);
      // (Off before the socket goes back to the agent's pool: that is on a later tick than `end`.)
      req.once('end', () => { socket.off('drain', relay); socket.off('close', dropRest); });
    }
    function dropRest() {
      upload.stop();
      req.resume();
    }
    req.on('end', () => {
      clearTimeout(bodyWatch);
      if (finished && current.get(req.socket) === mine) current.delete(req.socket);
      if (!answering) clearTimeout(watch);
      // (Once the exchange is done too: the rest of a body its answer came before goes on, its end with it.)
      if (failed || upstream.destroyed || upstream.socket?.writable === false) return;
      upload.flush();
      try {
        if (req.rawTrailers.length) upstream.addTrailers([...rawPairs(req.rawTrailers)] as [string, string][]);
      } catch {
        // Trailers Node's parser took but its client will not write (none known): both sides are
        // cut, as for a client that hangs up, and the exchange is counted as not judged.
        res.destroy();
        return;
      }
      upstream.end();
    });
    // A client that hangs up: forwarded, not judged, and the target's side is closed too.
    res.on('close', () => {
      if (res.writableFinished) return;
      clearTimeout(noAnswer);
      upstream.destroy();
      if (!finished) { hungUp = copying; copying = false; done({}); }
    });
  };

  // One exchange at a time per connection: a pipelined request is forwarded once the answer before it
  // has ended, as a target reading the connection itself takes them. Node hands over every request it
  // has parsed at once, so a client pipelining thousands without reading its answers made as many
  // exchanges (and connections to the target) at once, hundreds of MB, all from one connection.
  // Node reads on while one waits (it stops only once answers pile up unwritten, and none is written
  // here before its turn), so past MAX_PIPELINED waiting the connection is cut: no client that reads
  // its answers has that many unanswered, and nothing of those waiting was forwarded.
  const waiting = new WeakMap<Socket, (() => void)[]>();
  /** Bytes of the heads waiting, per connection and in all (MAX_WAITING_HEAD_BYTES, MAX_ALL_WAITING_HEAD_BYTES). */
  const waitingBytes = new WeakMap<Socket, number>();
  let allWaitingBytes = 0;
  let headsInFlight = 0;
  const next = (socket: Socket) => {
    const queue = waiting.get(socket);
    const start = queue?.shift();
    if (start) start();
    else waiting.delete(socket);
  };
  const serve = (req: IncomingMessage, res: ServerResponse, expects = false) => {
    const socket = req.socket;
    // Its head's bytes, for the bound on the heads waiting and on those being forwarded.
    const bytes = headBytes(req);
    const start = () => {
      // Its client went away while it waited: nothing of it was forwarded.
      if (res.destroyed || socket.destroyed) { next(socket); return; }
      // An answer Node holds behind one that closed the connection never gets its socket, nor a
      // 'close': the connection's end is its end (its client gone), so its exchange ends and is counted.
      let closed = false;
      const orphaned = () => { if (!closed && res.socket !== socket) res.emit('close'); };
      socket.once('close', orphaned);
      res.once('close', () => { closed = true; socket.off('close', orphaned); next(socket); });
      if (headsInFlight + bytes > MAX_HEADS_IN_FLIGHT) {
        busyRefused++;
        closing.add(socket);
        res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', connection: 'close', 'retry-after': '1' });
        res.end(`conformance proxy: the heads of the requests being forwarded passed ${MAX_HEADS_IN_FLIGHT / (1024 * 1024)} MiB; nothing of this one was forwarded\n`);
        return;
      }
      headsInFlight += bytes;
      res.once('close', () => { headsInFlight -= bytes; });
      handle(req, res, expects);
    };
    if (socket.destroyed) return;
    const queue = waiting.get(socket);
    if (!queue) { waiting.set(socket, []); start(); return; }
    // Heads waiting are bounded in bytes too, per connection and in all: 99 heads of 250 KiB waiting
    // on each of 30 connections took the proxy to 1.5 GB.
    const held = (waitingBytes.get(socket) ?? 0) + bytes;
    if (queue.length >= MAX_PIPELINED || held > MAX_WAITING_HEAD_BYTES || allWaitingBytes + bytes > MAX_ALL_WAITING_HEAD_BYTES) {
      queue.length = 0;
      socket.destroy();
      return;
    }
    if (!waitingBytes.has(socket)) socket.once('close', () => { allWaitingBytes -= waitingBytes.get(socket) ?? 0; waitingBytes.delete(socket); });
    waitingBytes.set(socket, held);
    allWaitingBytes += bytes;
    queue.push(() => {
      // Once the connection has closed its bytes were given back whole (a request waiting then still
      // comes here, to be dropped): given back again, the bound over all connections drifted up.
      const left = waitingBytes.get(socket);
      if (left !== undefined) { waitingBytes.set(socket, left - bytes); allWaitingBytes -= bytes; }
      start();
    });
  };
  const headMs = options.connections?.headMs ?? HEAD_MS;
  // A drain the kernel allowed at once is seen late when the proxy's thread is busy or starved of
  // the CPU (another process on its core: 10 to 20 ms), and the megabytes of a never-reading
  // client's first take counted as its pace: only a wait the thread slept through for
  // QUICK_WAIT_MS is sure to be the client's (its socket took nothing then, or it would have woken).
  // Read at a pause, and at a drain only past QUICK_WAIT_MS: an answer that never pauses reads none.
  // (Where the clock cannot be read, wall time, as before. A wait not over counts by wall time: a
  // never-reading client's, on a thread never idle, would never count else.)
  const busy = threadBusy();
  const unread = unreadTake();
  const longWait = (wall: number, busyThen: number) => wall >= QUICK_WAIT_MS && !(wall - ((busy?.busyMs() ?? NaN) - busyThen) < QUICK_WAIT_MS);
  const server = createServer({ requestTimeout: 0, headersTimeout: headMs, keepAliveTimeout: KEEP_ALIVE_MS, maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false });
  // No client stops the proxy by holding connections (idle, or trickling a head): bounded in time
  // and number. Two descriptors each: an exchange in flight holds one to the target (one at a time
  // per connection, see `serve`), and the agent keeps no more idle ones than were once in use. Two
  // unfinished heads each in memory (its request's, its answer's): within HEADS_BEING_READ in all.
  const guard = new ConnectionGuard(server, { headMs, keepAliveMs: KEEP_ALIVE_MS, headBytes: 2 * MAX_HEADER_BYTES, ...(options.connections?.max !== undefined ? { maxConnections: options.connections.max } : {}) }, 2, stalls);
  server.on('request', guard.listener(serve));
  // A request expecting 100 (Continue) is forwarded like any other; its 100 comes from the target (see `continued`).
  server.on('checkContinue', guard.listener((req, res) => serve(req, res, true)));
  // Any other expectation is the target's to meet or refuse (RFC 9110 10.1.1): forwarded as it came,
  // not answered 417 by Node's server on the target's behalf.
  server.on('checkExpectation', guard.listener((req, res) => serve(req, res)));
  // Every header a request has (its head is bounded by MAX_HEADER_BYTES): past Node's default of 2,000
  // its rawHeaders silently stop, while its parser still frames the body by a Transfer-Encoding or
  // Content-Length among the rest, so such a request went on unframed and its body reached the target
  // as requests of its own, never counted or judged.
  server.maxHeadersCount = 0;
  // A client that half-closes once its request is sent (RFC 9112 9.6) still gets the answer the
  // target gives it: Node's default would drop it (the request already forwarded, the exchange unjudged).
  // (Node's own switch for it, not in its types; test/proxy-half-close.test.ts holds it working.)
  Object.assign(server, { httpAllowHalfOpen: true });
  // Malformed HTTP: 400, a head past MAX_HEADER_BYTES 431 (RFC 6585 5), when nothing is answered on the
  // connection; with an exchange in flight or waiting there, only closed: a 400 ahead of its answer
  // went out as that answer, or inside its body (RFC 9112 9.3.2: answers in the order of the requests).
  server.on('clientError', (e: NodeJS.ErrnoException, socket) => {
    // A body the parser refused (not a client that ended its side before the body was whole: an
    // invalid EOF, a hang-up the exchange counts as its own).
    if (socket.writable && e.code?.startsWith('HPE_') && e.code !== 'HPE_INVALID_EOF_STATE' && current.get(socket as Socket)?.malformed()) return;
    if (!socket.writable || waiting.has(socket as Socket)) { socket.destroy(); return; }
    const [status, why] = e.code === 'HPE_HEADER_OVERFLOW' ? ['431 Request Header Fields Too Large', `the request's head passed ${MAX_HEADER_BYTES / 1024} KiB`] : ['400 Bad Request', 'the request is not HTTP/1.1 the proxy can read'];
    const line = `conformance proxy: ${why}\n`;
    socket.end(`HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(line)}\r\n\r\n${line}`);
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (e: Error) => { busy?.close(); reject(e); };
    server.once('error', failed);
    server.listen(options.port, options.host ?? '127.0.0.1', () => { server.off('error', failed); resolve(); });
  });
  const { port, address, family } = server.address() as AddressInfo;
  return {
    url: `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`,
    port,
    inFlight: () => active,
    refused: () => refused,
    busyRefused: () => busyRefused,
    lagging: () => laggingNow(performance.now()).length,
    connections: () => guard.counts,
    bodyMs: bodyDue,
    connectionsNote: () => guard.note(),
    informationalDropped: () => informationalDropped,
    informationalReplaced: () => informationalReplaced,
    close: async (graceMs) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (active > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      server.closeAllConnections();
      await closed;
      busy?.close();
    },
  };
}
