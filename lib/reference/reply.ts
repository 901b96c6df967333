// What an endpoint hands back to the server shell, and the helpers that build it.
import { mediaType } from '../http/media-type.js';

export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface RequestContext {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

export const reply = (status: number, mediaType: string, body: string, headers: Record<string, string> = {}): Reply =>
  ({ status, headers: { 'content-type': mediaType, ...headers }, body });

/** The request's media type without parameters, lower-cased; undefined when absent. */
export const mediaTypeOf = (header: string | string[] | undefined): string | undefined =>
  typeof header === 'string' ? mediaType(header) : undefined;

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
