// What an endpoint hands back to the server shell, and the helpers that build it.
import { mediaType } from '../http/media-type.js';

export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Text, or bytes already encoded (the cached record bodies, written as they are). */
  readonly body: string | Buffer;
  /** Close the connection without answering (a crash, as a fault shows one). */
  readonly drop?: boolean;
}

export interface RequestContext {
  readonly method: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  /** Set by a judging reference: the rules this request breaks, named in any error answer to it. */
  readonly breaks?: readonly string[];
}

/** " (fails REQ-…)" for an error message, when the request was judged and broke a rule. */
export const blameOf = (ctx: Pick<RequestContext, 'breaks'>): string => (ctx.breaks?.length ? ` (fails ${ctx.breaks.join(', ')})` : '');

export const reply = (status: number, mediaType: string, body: string | Buffer, headers: Record<string, string> = {}): Reply =>
  ({ status, headers: { 'content-type': mediaType, ...headers }, body });

/** Memoises a function of a header value: clients repeat the same few values. Bounded, so a
 *  client sending endless distinct values costs no memory. */
export function memoByValue<T>(f: (value: string | undefined) => T, max = 256): (value: string | undefined) => T {
  const seen = new Map<string | undefined, T>();
  return (value) => {
    let hit = seen.get(value);
    if (hit === undefined && !seen.has(value)) {
      hit = f(value);
      if (seen.size < max) seen.set(value, hit);
    }
    return hit as T;
  };
}

/** The request's media type without parameters, lower-cased; undefined when absent. */
const cachedMediaType = memoByValue(mediaType);
export const mediaTypeOf = (header: string | string[] | undefined): string | undefined =>
  typeof header === 'string' ? cachedMediaType(header) : undefined;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Request bodies must be UTF-8; a decoding error is the caller's fault, answered as such. */
export function decodeUtf8(body: Buffer): string | undefined {
  try {
    return UTF8.decode(body);
  } catch {
    return undefined;
  }
}

export const header = (ctx: RequestContext, name: string): string | undefined => {
  const v = ctx.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};
