// A recorded exchange: what the harness sent and what came back (or why nothing did). Checks
// read only these records; nothing is sent twice.

export interface ExchangeSpec {
  /** Stable id, e.g. "login.post"; checks name the exchanges they read by it. */
  readonly id: string;
  /** One line: what this request is for. */
  readonly title: string;
  readonly method: string;
  /** Path and query, relative to the base URL. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface RecordedResponse {
  readonly status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export type TransportErrorKind =
  | 'refused' | 'dns' | 'tls' | 'connect-timeout' // the target cannot be reached
  | 'headers-timeout' | 'body-timeout' | 'too-large' | 'reset' | 'aborted' | 'other'
  | 'not-sent'; // the run's request cap was spent before this exchange

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
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body?: string;
  };
  readonly response?: RecordedResponse;
  readonly error?: TransportError;
  readonly startedAt: string;
  /** Wall time of the exchange, retries and their waits included. */
  readonly durationMs: number;
  /** Requests sent for it, when more than one (429/503 with Retry-After were retried). */
  readonly attempts?: number;
}
