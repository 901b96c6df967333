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
// Bookkeeping is O(1) per connection and per request (ordered maps, a coarse clock read by one sweep
// timer). A connection closed here sent no whole request: it is no exchange, and is counted here.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Server, Socket } from 'node:net';

export interface ConnectionLimits {
  /** Open connections at most (default: `connectionBound`, from the descriptor limit). */
  readonly maxConnections?: number;
  /** A whole request head within this long of a connection's accept (the server's headersTimeout). */
  readonly headMs: number;
  /** How long a connection may sit idle between requests (the server's keepAliveTimeout). */
  readonly keepAliveMs: number;
}

/** What was closed or refused, and why (none of it an exchange: no whole request came). */
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
}

/** The soft limit on open file descriptors (Linux: /proc/self/limits; Node raises it to the hard
 *  limit at start), or undefined where it cannot be read. */
export function descriptorLimit(text = readLimits()): number | undefined {
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(text ?? '');
  if (!m) return undefined;
  return m[1] === 'unlimited' ? Infinity : Number(m[1]);
}

function readLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

/** Where the limit cannot be read: the usual soft limit of Linux (macOS's 256 is raised by Node). */
const FALLBACK_DESCRIPTORS = 1024;
/** Never more than this many connections, whatever the limit: each idle one costs some KB of memory. */
export const MAX_CONNECTIONS_CAP = 10_000;

/** The bound on open connections: half the descriptors go to connections (`perConnection` each: the
 *  proxy holds one to the target for each), the other half stay for the process's own (its files,
 *  the judge's worker, stdio, sockets being closed), so a peer at the bound never starves them. */
export function connectionBound(perConnection: number, limit: number | undefined): number {
  const fds = limit ?? FALLBACK_DESCRIPTORS;
  return Math.max(1, Math.min(MAX_CONNECTIONS_CAP, Math.floor(fds / 2 / perConnection)));
}

/** One connection: requests in progress on it, and since when it waits for a request head. */
interface Conn { busy: number; since: number; answered: boolean }

/** The socket a connection's request is read from, as its accept gave it (a TLS socket's TCP one). */
const rawOf = (s: Socket): Socket => (s as Socket & { _parent?: Socket | null })._parent ?? s;

export class ConnectionGuard {
  private readonly all = new Map<Socket, Conn>();
  /** Accepted, no request head yet: oldest first. */
  private readonly fresh = new Map<Socket, Conn>();
  /** Answered, no new request head yet: longest waiting first. */
  private readonly between = new Map<Socket, Conn>();
  /** A coarse clock (ms), moved by the sweep: nothing reads the time per request. */
  private now = performance.now();
  private readonly timer: NodeJS.Timeout;
  /** The sweep's period: the coarse clock is at most this far behind. */
  private readonly every: number;
  private readonly max: number;
  /** Shared listeners (one function each, `this` the emitter): a response finished, a socket closed. */
  private readonly ended: (this: ServerResponse) => void;
  private readonly closed: (this: Socket) => void;
  private noHead = 0;
  private idle = 0;
  private evicted = 0;
  private refused = 0;

  /** `perConnection`: descriptors each client connection may hold (for the default bound). */
  constructor(server: Server, private readonly limits: ConnectionLimits, perConnection = 1) {
    this.max = limits.maxConnections ?? connectionBound(perConnection, descriptorLimit());
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the listeners' `this` is their emitter
    const guard = this;
    this.ended = function (this: ServerResponse) { guard.finished(this.req.socket); };
    this.closed = function (this: Socket) { guard.forget(this); };
    server.on('connection', (socket: Socket) => this.accept(socket));
    // Checked a few times per bound (at most each second): one is closed at most two periods past it.
    this.every = Math.min(1000, Math.max(10, Math.floor(Math.min(limits.headMs, limits.keepAliveMs) / 4)));
    this.timer = setInterval(() => this.sweep(), this.every);
    this.timer.unref();
    server.on('close', () => clearInterval(this.timer));
  }

  get counts(): ConnectionCounts {
    return { open: this.all.size, waiting: this.fresh.size + this.between.size, max: this.max, noHead: this.noHead, idle: this.idle, evicted: this.evicted, refused: this.refused };
  }

  /** One line for a mode's reports on what was closed or refused, or undefined when nothing was. */
  note(): string | undefined {
    const s = (ms: number) => `${+(ms / 1000).toFixed(1)} s`;
    const parts = ([
      [this.noHead, `sent no whole request head within ${s(this.limits.headMs)} of being accepted`],
      [this.idle, `sent no whole request head within ${s(this.limits.keepAliveMs + this.limits.headMs)} of their last answer`],
      [this.evicted, `were closed, waiting longest for a request head, for a new connection at the bound of ${this.max} open`],
      [this.refused, `were refused at the bound of ${this.max} open, every open one busy with a request`],
    ] as const).filter(([n]) => n > 0);
    if (!parts.length) return undefined;
    const total = parts.reduce((sum, [n]) => sum + n, 0);
    return `${total} connection(s) closed or refused with no whole request (no exchange, so none judged or counted as one): ${parts.map(([n, why]) => `${n} ${why}`).join('; ')}`;
  }

  /** The request listener, with each request's start and end marked on its connection. */
  listener(inner: RequestListener): RequestListener {
    return (req: IncomingMessage, res: ServerResponse) => {
      this.started(req.socket);
      res.on('finish', this.ended);
      inner(req, res);
    };
  }

  private accept(socket: Socket): void {
    if (this.all.size >= this.max && !this.evictOne()) {
      this.refused++;
      socket.destroy();
      return;
    }
    const c: Conn = { busy: 0, since: this.now, answered: false };
    this.all.set(socket, c);
    this.fresh.set(socket, c);
    socket.on('close', this.closed);
  }

  private started(socket: Socket): void {
    const raw = rawOf(socket);
    const c = this.all.get(raw);
    if (!c || c.busy++) return;
    (c.answered ? this.between : this.fresh).delete(raw);
  }

  /** A response finished: once none is left in progress, the connection waits for a head again. */
  private finished(socket: Socket): void {
    const raw = rawOf(socket);
    const c = this.all.get(raw);
    if (!c || --c.busy > 0 || raw.destroyed) return;
    c.answered = true;
    c.since = this.now;
    this.between.set(raw, c);
  }

  private forget(socket: Socket): void {
    const c = this.all.get(socket);
    if (!c) return;
    this.all.delete(socket);
    (c.answered ? this.between : this.fresh).delete(socket);
  }

  /** Closes the connection waiting longest for a request head; false when every one is busy. */
  private evictOne(): boolean {
    const a = first(this.fresh);
    const b = first(this.between);
    const victim = a && (!b || a[1].since <= b[1].since) ? a : b;
    if (!victim) return false;
    this.evicted++;
    this.close(victim[0]);
    return true;
  }

  private close(socket: Socket): void {
    this.forget(socket);
    socket.destroy();
  }

  /** Closes, oldest first, each connection past its bound (`since` may be a period early: one more). */
  private sweep(): void {
    this.now = performance.now();
    for (const [socket, c] of this.fresh) {
      if (this.now - c.since < this.limits.headMs + this.every) break;
      this.noHead++;
      this.close(socket);
    }
    const bound = this.limits.keepAliveMs + this.limits.headMs + this.every;
    for (const [socket, c] of this.between) {
      if (this.now - c.since < bound) break;
      this.idle++;
      this.close(socket);
    }
  }
}

const first = <K, V>(m: Map<K, V>): [K, V] | undefined => m.entries().next().value;
