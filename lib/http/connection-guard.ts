// Bounds on the connections a long-running listener keeps (the reference, the judging reference, the
// validating proxy), so that no peer stops it by holding connections open. Node's headersTimeout
// never closes a connection that has not sent a byte, and nothing of Node's bounds how many are open:
// a peer opening connections that send nothing (or trickle a head) used up the process's file
// descriptors, and every later client was refused. So:
// - a connection must send a whole request head within `headMs` of being accepted, or within
//   `keepAliveMs + headMs` of its last answer (Node closes one silent for keepAliveMs itself; this
//   also bounds one that trickles a head); past that it is closed;
// - at most `maxConnections` are open. At the bound a new connection is served by closing the one
//   that has waited longest for a request head (fresh, or between requests); one whose request is in
//   progress (its body coming, or its answer being made or awaited) is never closed. Only when
//   every connection is busy is the new one refused. Idle holders cannot keep an honest client out,
//   and a flood closes the flooder's own older connections first.
// - with `stalls` (the proxy's, the reference's): past those, and before one accepted since the
//   last sweep or two (its head may be on its way), a connection whose client keeps its request
//   waiting (a body not coming, an answer not read) and moving fewer than MIN_RATE bytes per second
//   lately (mod_reqtimeout's MinRate), the one that moved fewest first: since the sweep before the
//   last (one to two periods, 1 to 2 s at the defaults), or since its first head when that came
//   later; one at or above it is never closed so. Its pipelined requests and their answers count:
//   since its last head alone, a client that had just pipelined dozens of requests, its next body
//   on its way, had moved nothing and was closed before a peer trickling a body. Not since its first
//   head either: a peer reading no answer has megabytes taken by the kernel's buffers in its first
//   instant, and that average ranked it above an honest client uploading at a few KiB/s for
//   minutes, which was closed in its place. Nor does that first take count within the window (the
//   owner says where it ended, `Stalls.from`; what came before its last head still counts): a peer
//   opening new connections reading nothing each second on every slot had its takes in the window
//   and outranked that upload all the same.
//   Else a peer that keeps every slot in that state (a trickled body cut at the body deadline and
//   sent again on a new connection, an answer never read) kept honest clients out as long as it
//   liked, and its churn of new connections closed theirs before their heads came (8 slots, 24
//   such peers: 0 of 154 honest requests in 8 s served). Mature servers bound that pace rather than
//   the count alone: Apache's mod_reqtimeout MinRate, nginx's client_body_timeout/send_timeout,
//   HAProxy's timeout http-request/client; nginx at worker_connections reuses idle connections
//   only. Here the pace matters only at the bound, so a slow client is never cut while there is
//   room; and not a share per client address (nginx's limit_conn): behind one address (127.0.0.1,
//   a NAT, a CDN) honest and hostile clients are one, and one honest load test uses dozens.
// Cost: a request only stores its response on its connection (a listener per response added about
// 1 µs per request in an A/B, no more than noise), and with `stalls` its socket's byte count; a sweep
// timer (each second at most) samples that count of each connection that had a request, finds which
// answered connections wait for a head again, by their last response being finished and its request
// whole, so one between requests is a candidate for closing from the sweep after its answer. A
// connection closed here sent no whole request: it is no exchange, and is counted here.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Server, Socket } from 'node:net';

export interface ConnectionLimits {
  /** Open connections at most (default: `connectionBound`, from the descriptor limit, and from
   *  `headBytes`). */
  readonly maxConnections?: number;
  /** The most one connection's unfinished heads hold while Node's parsers read them (its request's,
   *  and at a proxy its target's answer's): the default bound keeps them all within HEADS_BEING_READ. */
  readonly headBytes?: number;
  /** A whole request head within this long of a connection's accept (the server's headersTimeout). */
  readonly headMs: number;
  /** How long a connection may sit idle between requests (the server's keepAliveTimeout). */
  readonly keepAliveMs: number;
}

/** What the guard may ask its owner of a connection with a request in progress (the socket as
 *  accepted, and the request's response), to close it at the bound in favour of a new one. */
export interface Stalls {
  /** Whether its client keeps its request waiting now: its body not coming while the owner takes
   *  it, or its answer held up by the client's full side (not waiting on the owner or its target). */
  stalled(socket: Socket, res: ServerResponse): boolean;
  /** Called just before such a connection is closed at the bound (its owner counts the exchange). */
  closing(socket: Socket, res: ServerResponse): void;
  /** The bytes its socket had moved (as `movedBy` counts) when its client began keeping it waiting
   *  past its kernel's first take, if known: what that take swallowed at memory speed at an answer's
   *  start (megabytes, from a client reading none) is no sign of the client and counts for nothing
   *  (see `unreadTake`; nor does what moved between its request's head and there; what came before
   *  it counts). */
  from?(socket: Socket, res: ServerResponse): number | undefined;
}

/** What was closed or refused, and why (none of it an exchange but `stalled`: no whole request came). */
export interface ConnectionCounts {
  /** Open now. */
  readonly open: number;
  /** Of those, waiting for a request head now (the rest are busy with a request). */
  readonly waiting: number;
  /** The bound on open connections. */
  readonly max: number;
  /** Closed: no whole request head within headMs of being accepted. */
  readonly noHead: number;
  /** Closed: no whole request head within keepAliveMs + headMs of its last answer. */
  readonly idle: number;
  /** Closed at the bound, to serve a new connection: the one waiting longest for a request head. */
  readonly evicted: number;
  /** New connections refused at the bound: every open one was busy with a request. */
  readonly refused: number;
  /** Closed at the bound, to serve a new connection: a request in progress whose client kept it
   *  waiting, moving fewest bytes per second (only with `stalls`; its owner counts the exchange). */
  readonly stalled: number;
}

/** A bound as the notes say it (`10 s`, `0.5 s`). */
export const seconds = (ms: number): string => `${+(ms / 1000).toFixed(1)} s`;

/** The soft limit on open file descriptors (Linux: /proc/self/limits; Node raises it to the hard
 *  limit at start), or undefined where it cannot be read. */
export function descriptorLimit(text = readProc('/proc/self/limits')): number | undefined {
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(text ?? '');
  if (!m) return undefined;
  return m[1] === 'unlimited' ? Infinity : Number(m[1]);
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The most the kernels' buffers take of an answer whose client reads none of it (bytes): this side's
 *  send buffer at its largest (Linux grows it up to tcp_wmem's last figure) and the client's receive
 *  buffer as it starts (tcp_rmem's middle one; Linux grows it only as its application reads), this
 *  host's figures standing for the client's; Linux's defaults where they cannot be read. */
export function unreadTake(wmem = readProc('/proc/sys/net/ipv4/tcp_wmem'), rmem = readProc('/proc/sys/net/ipv4/tcp_rmem')): number {
  const figure = (text: string | undefined, i: number, otherwise: number) => {
    const n = Number(text?.trim().split(/\s+/)[i]);
    return Number.isSafeInteger(n) && n > 0 ? n : otherwise;
  };
  return figure(wmem, 2, 4 * 1024 * 1024) + figure(rmem, 1, 128 * 1024);
}

/** Where the limit cannot be read: the usual soft limit of Linux (macOS's 256 is raised by Node). */
const FALLBACK_DESCRIPTORS = 1024;
/** Never more than this many connections, whatever the limit: each idle one costs some KB of memory. */
export const MAX_CONNECTIONS_CAP = 10_000;

/** The bound on open connections: half the descriptors go to connections (`perConnection` each: the
 *  proxy holds one to the target for each), the other half stay for the process's own (its files,
 *  the judge's worker, stdio, sockets being closed), so a peer at the bound never starves them. */
export function connectionBound(perConnection: number, limit: number | undefined, headBytes = 0): number {
  const fds = limit ?? FALLBACK_DESCRIPTORS;
  const byMemory = headBytes > 0 ? Math.floor(HEADS_BEING_READ / headBytes) : Infinity;
  return Math.max(1, Math.min(MAX_CONNECTIONS_CAP, byMemory, Math.floor(fds / 2 / perConnection)));
}

/** Bytes of heads Node's parsers may hold at once over every connection, unfinished (the parser keeps
 *  a head until it is whole, and nothing sees it before): 2 000 connections each sending 250 KiB of a
 *  head it never finished took the proxy from 92 to 600 MB, and the bound of open connections (5 000
 *  at this machine's descriptor limit, 10 000 at most) let a peer take it to GBs. */
export const HEADS_BEING_READ = 128 * 1024 * 1024;

/** One connection: since when it waits for a request head (from its accept, or from the sweep that
 *  first saw its last answer finished), and its last request's response; with `stalls`, when its
 *  first request's head came (the coarse clock) and the bytes its socket had moved by then, those
 *  moved by its last request's head (`head`), and by the sweep before the last (`mark`, once two
 *  sweeps have seen it with a request) and the last (`last`). */
interface Conn { since: number; res?: ServerResponse; idleFor?: ServerResponse; at?: number; moved?: number; head?: number; mark?: number; last?: number }

/** Bytes per second (both ways) at or above which a connection is never closed for a new one at the
 *  bound: Apache's mod_reqtimeout MinRate default (500, for a request's head and its body). Over
 *  the guard's window of one to two sweeps (1 to 2 s at the defaults), not per request. */
export const MIN_RATE = 500;

/** Bytes a socket has moved both ways (written: those its kernel took). */
export const movedBy = (s: Socket): number => s.bytesRead + s.bytesWritten - s.writableLength;

/** Whether a connection's last request is in progress: its answer not finished, or its body still
 *  coming after it (an early answer, RFC 9110 allows it: a 405, a target's 413 the proxy forwards).
 *  Else it waits for a head: an honest upload going on after its answer was closed as idle
 *  (keepAliveMs + headMs after it), or first at the bound, whatever its pace. */
const inProgress = (res: ServerResponse): boolean => !res.writableFinished || !res.req.complete;

/** The socket a connection's request is read from, as its accept gave it (a TLS socket's TCP one). */
const rawOf = (s: Socket): Socket => (s as Socket & { _parent?: Socket | null })._parent ?? s;

export class ConnectionGuard {
  /** Accepted, no request yet: oldest first. */
  private readonly fresh = new Map<Socket, Conn>();
  /** Had a request: busy, or waiting for its next head. */
  private readonly used = new Map<Socket, Conn>();
  /** Of `used`, those the last sweep saw waiting, longest waiting first (from `next` on; an entry
   *  whose connection has had a request since, or has closed, is passed over). */
  private waiting: [Socket, Conn, ServerResponse][] = [];
  private next = 0;
  /** A coarse clock (ms), moved by the sweep: nothing reads the time per request. */
  private now = performance.now();
  /** The clock at the sweep before the last: a fresh connection accepted since is young. */
  private before = this.now;
  /** Connections with a request their client keeps waiting, as last ranked (fewest bytes per second
   *  lately first; from `nextStalled` on), the clock then, and the clock when a ranking last found none. */
  private stalledRank: Socket[] = [];
  private nextStalled = 0;
  private rankedAt = -1;
  private noneStalledAt = -1;
  private readonly timer: NodeJS.Timeout;
  /** The sweep's period: the coarse clock is at most this far behind. */
  private readonly every: number;
  private readonly max: number;
  /** A socket closed (`this`: it): one shared listener. */
  private readonly closed: (this: Socket) => void;
  private noHead = 0;
  private idle = 0;
  private evicted = 0;
  private refused = 0;
  private stalled = 0;

  /** `perConnection`: descriptors each client connection may hold (for the default bound). */
  constructor(server: Server, private readonly limits: ConnectionLimits, perConnection = 1, private readonly stalls?: Stalls) {
    this.max = limits.maxConnections ?? connectionBound(perConnection, descriptorLimit(), limits.headBytes);
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the listener's `this` is its socket
    const guard = this;
    this.closed = function (this: Socket) { guard.forget(this); };
    server.on('connection', (socket: Socket) => this.accept(socket));
    // A few times per bound (at most each second): one is closed at most two periods past it.
    this.every = Math.min(1000, Math.max(10, Math.floor(Math.min(limits.headMs, limits.keepAliveMs) / 4)));
    this.timer = setInterval(() => this.sweep(), this.every);
    this.timer.unref();
    server.on('close', () => clearInterval(this.timer));
  }

  get counts(): ConnectionCounts {
    let waiting = this.fresh.size;
    for (const c of this.used.values()) if (c.res && !inProgress(c.res)) waiting++;
    return { open: this.fresh.size + this.used.size, waiting, max: this.max, noHead: this.noHead, idle: this.idle, evicted: this.evicted, refused: this.refused, stalled: this.stalled };
  }

  /** The response to the last request on a connection (the socket as its server gave it), if any. */
  lastResponse(socket: Socket): ServerResponse | undefined {
    return this.used.get(rawOf(socket))?.res;
  }

  /** One line for a mode's reports on what was closed or refused, or undefined when nothing was. */
  note(): string | undefined {
    const parts = ([
      [this.noHead, `sent no whole request head within ${seconds(this.limits.headMs)} of being accepted`],
      [this.idle, `sent no whole request head within ${seconds(this.limits.keepAliveMs + this.limits.headMs)} of their last answer`],
      [this.evicted, `were closed, waiting longest for a request head, for a new connection at the bound of ${this.max} open`],
      [this.refused, `were refused at the bound of ${this.max} open, every open one busy with a request`],
    ] as const).filter(([n]) => n > 0);
    const total = parts.reduce((sum, [n]) => sum + n, 0);
    const lines = [
      ...(parts.length ? [`${total} connection(s) closed or refused with no whole request (no exchange, so none judged or counted as one): ${parts.map(([n, why]) => `${n} ${why}`).join('; ')}`] : []),
      ...(this.stalled ? [`${this.stalled} connection(s) with a request in progress were closed for a new connection at the bound of ${this.max} open: their client kept it waiting (a body not coming, an answer not read), moving fewest bytes per second, under ${MIN_RATE} B/s lately`] : []),
    ];
    return lines.length ? lines.join('; ') : undefined;
  }

  /** The request listener, each request's response stored on its connection (responses finish in
   *  order, so the last one finished, its request whole, means none is in progress). */
  listener(inner: RequestListener): RequestListener {
    return (req: IncomingMessage, res: ServerResponse) => {
      const raw = rawOf(req.socket);
      let c = this.used.get(raw);
      if (!c && (c = this.fresh.get(raw))) {
        this.fresh.delete(raw);
        this.used.set(raw, c);
      }
      if (c) {
        if (this.stalls) {
          const moved = movedBy(raw);
          if (!c.res) { c.at = this.now; c.moved = moved; }
          c.head = moved;
        }
        c.res = res;
      }
      inner(req, res);
    };
  }

  private accept(socket: Socket): void {
    if (this.fresh.size + this.used.size >= this.max && !this.evictOne()) {
      this.refused++;
      socket.destroy();
      return;
    }
    this.fresh.set(socket, { since: this.now });
    socket.on('close', this.closed);
  }

  private forget(socket: Socket): void {
    if (!this.fresh.delete(socket)) this.used.delete(socket);
  }

  /** Whether a connection the sweep saw waiting still is (no request since, still open). */
  private stillWaiting([socket, c, res]: [Socket, Conn, ServerResponse]): boolean {
    return c.res === res && this.used.has(socket);
  }

  /** Closes, for a new connection, the one waiting longest for a request head, but one accepted
   *  since the sweep before the last only after (with `stalls`) a request its client keeps waiting,
   *  fewest bytes per second first; false when there is none of these. */
  private evictOne(): boolean {
    while (this.next < this.waiting.length && !this.stillWaiting(this.waiting[this.next]!)) this.next++;
    const a = first(this.fresh);
    const b = this.waiting[this.next];
    const young = !!a && a[1].since >= this.before && !!this.stalls;
    if (a && !young && (!b || a[1].since <= b[1].since)) { this.close(a[0]); }
    else if (b) { this.next++; this.close(b[0]); }
    else {
      const s = this.stalls && this.stalledOne();
      if (s) {
        this.stalls!.closing(s, this.used.get(s)!.res!);
        this.close(s);
        this.stalled++;
        return true;
      }
      if (!a) return false;
      this.close(a[0]);
    }
    this.evicted++;
    return true;
  }

  /** The connection whose client keeps its request waiting that moved fewest bytes per second, under
   *  MIN_RATE, since the sweep before the last (or its first head, if later), by a ranking made when
   *  the last one ran out or the clock moved: each ranking (one pass over the open connections)
   *  serves as many closings as it found, and one that found none is not made again before the
   *  clock moves. */
  private stalledOne(): Socket | undefined {
    for (let ranked = false; ; ranked = true) {
      while (this.rankedAt === this.now && this.nextStalled < this.stalledRank.length) {
        const s = this.stalledRank[this.nextStalled++]!;
        const c = this.used.get(s);
        if (c?.res && inProgress(c.res) && this.stalls!.stalled(s, c.res)) return s;
      }
      if (ranked || this.noneStalledAt === this.now) return undefined;
      const found: [number, number, Socket][] = [];
      for (const [s, c] of this.used) {
        if (c.at === undefined || !c.res || !inProgress(c.res) || !this.stalls!.stalled(s, c.res)) continue;
        // Since the sweep before the last (the clock `before`), else its first head came since then.
        const [start, startAt] = c.mark === undefined ? [c.moved!, c.at] : [c.mark, this.before];
        // Not what its kernel took at once of its last answer before its client kept it waiting (its
        // owner knows when): from its last head to then.
        const from = this.stalls!.from?.(s, c.res);
        const taken = from === undefined ? 0 : Math.max(0, from - Math.max(start, c.head!));
        const rate = ((movedBy(s) - start - taken) * 1000) / Math.max(this.now - startAt, this.every);
        if (rate < MIN_RATE) found.push([rate, c.at, s]);
      }
      this.stalledRank = found.sort((x, y) => x[0] - y[0] || x[1] - y[1]).map(([, , s]) => s);
      this.nextStalled = 0;
      this.rankedAt = this.now;
      if (!found.length) this.noneStalledAt = this.now;
    }
  }

  private close(socket: Socket): void {
    this.forget(socket);
    socket.destroy();
  }

  /** Closes, oldest first, each fresh connection past its bound (`since` may be a period early: one
   *  more); marks each answered connection newly seen waiting, and closes those waiting past theirs
   *  (both after the loop has read what came: see `closeLate`);
   *  with `stalls`, samples the bytes moved by each connection that had a request. */
  private sweep(): void {
    this.before = this.now;
    this.now = performance.now();
    // Those past their bound are closed after the loop's next poll, if still so: a thread kept busy
    // past the bound (an answer of MiB made and judged on a loaded machine) ran this timer before it
    // read heads that had come in time, and closed their connections as silent.
    const late: [Socket, Conn, ServerResponse?][] = [];
    for (const [socket, c] of this.fresh) {
      if (this.now - c.since < this.limits.headMs + this.every) break;
      late.push([socket, c]);
    }
    const bound = this.limits.keepAliveMs + this.limits.headMs;
    const waiting = this.waiting.slice(this.next).filter((w) => this.stillWaiting(w));
    for (const [socket, c] of this.used) {
      // Each, busy or not: a window spans its requests. (Undefined `last`: its first head came since.)
      if (this.stalls) { c.mark = c.last; c.last = movedBy(socket); }
      const res = c.res!;
      if (inProgress(res)) continue;
      if (c.idleFor !== res) {
        c.idleFor = res;
        c.since = this.now;
        waiting.push([socket, c, res]);
      } else if (this.now - c.since >= bound) {
        late.push([socket, c, res]);
      }
    }
    this.waiting = waiting.filter((w) => this.stillWaiting(w));
    this.next = 0;
    if (late.length) setImmediate(() => this.closeLate(late));
  }

  /** Closes each connection the sweep found past its bound that still sends no request head: fresh
   *  still (no `res`), or between requests since that response. */
  private closeLate(late: readonly [Socket, Conn, ServerResponse?][]): void {
    for (const [socket, c, res] of late) {
      if (!res && this.fresh.get(socket) === c) this.noHead++;
      else if (res && this.used.get(socket) === c && c.res === res) this.idle++;
      else continue;
      this.close(socket);
    }
  }
}

const first = <K, V>(m: Map<K, V>): [K, V] | undefined => m.entries().next().value;

/** Whether a request asks to upgrade its connection: a Connection field naming `upgrade` and an
 *  Upgrade field, as Node's parser reads them. Such a request still comes as 'request' where nothing
 *  listens for 'upgrade', but the parser reads nothing past its head in the read it came in: its
 *  body and the requests pipelined behind it are thrown away unseen, and the connection goes on
 *  with the next read (a request smuggled past a front end, answers shifted by one). The long-running
 *  listeners answer one without a body as any other, then close its connection, serving nothing
 *  behind it; one declaring a body is refused. */
export function asksUpgrade(req: IncomingMessage): boolean {
  const connection = req.headers.connection;
  return req.headers.upgrade !== undefined && connection !== undefined && connection.split(',').some((t) => t.trim().toLowerCase() === 'upgrade');
}

/** Whether a request declares a body (Transfer-Encoding, or a Content-Length other than 0). */
export const declaresBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
