// POST on the JSON routes of 4.1 and 4.3: read the request DTO, choose the format as ServiceStack
// does (reply route, path extension, ?format=, then Accept), and write the record.
import Negotiator from 'negotiator';
import { ENUM_NAME, INT32_MAX, INT32_MIN } from '../contract/formats.js';
import { FORMATS, JSON_MEDIA_TYPE, type JsonOperation } from '../contract/operations.js';
import type { Shape } from '../contract/types.js';
import { isJsonObject, type JsonValue } from '../json/node.js';
import { serviceStackError } from './errors.js';
import { decodeUtf8, header, mediaTypeOf, memoByValue, reply, type Reply, type RequestContext } from './reply.js';
import { asFormat, type Format } from './routes.js';

/** Renders the operation's response record in a format (the server caches these). */
export type Render = (op: JsonOperation, format: Format) => { mediaType: string; body: Buffer };

export interface JsonEndpointOptions {
  readonly honourJsonExtension: boolean;
  readonly honourFormatQuery: boolean;
  readonly honourCallback: boolean;
  readonly jsonpMediaType: string;
  readonly jsonp: (callback: string, json: string) => string;
}

const EXPECTED: Partial<Record<string, string>> = {
  string: 'a string', integer: 'a 32-bit integer', boolean: 'a boolean', enum: 'an enum member name',
};

/** ServiceStack.Text would fail to bind these; say which member and why. */
function requestProblem(shape: Shape, dto: Record<string, JsonValue>): string | undefined {
  for (const f of shape.fields) {
    const v = dto[f.json];
    if (v === undefined || v === null) continue;
    const t = f.type;
    const ok =
      t.kind === 'string' ? typeof v === 'string'
        : t.kind === 'integer' ? typeof v === 'number' && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX
          : t.kind === 'boolean' ? typeof v === 'boolean'
            : t.kind === 'enum' ? typeof v === 'string' && ENUM_NAME.test(v)
              : true;
    if (!ok) return `member ${f.json} of ${shape.name} must be ${EXPECTED[t.kind] ?? t.kind}`;
  }
  return undefined;
}

const negotiated = memoByValue((accept): Format => {
  const best = new Negotiator({ headers: { accept: accept ?? '*/*' } }).mediaType([JSON_MEDIA_TYPE, 'application/xml', 'text/xml']);
  return best === 'application/xml' || best === 'text/xml' ? 'xml' : 'json';
});

/** Every character outside [A-Za-z0-9._] becomes "_" (ServiceStack's SafeVarRef). */
export const safeCallback = (name: string): string => name.replace(/[^A-Za-z0-9._]/g, '_');

export interface JsonServed {
  readonly reply: Reply;
  readonly selector?: 'reply-route' | 'extension' | 'format-query' | 'negotiated';
  readonly jsonp?: boolean;
}

export function handleJsonPost(
  op: JsonOperation, replyRoute: boolean, extension: Format | undefined, ctx: RequestContext,
  options: JsonEndpointOptions, render: Render,
): JsonServed {
  const bad = (r: Reply): JsonServed => ({ reply: r });
  if (ctx.body.length > 0 && mediaTypeOf(header(ctx, 'content-type')) !== JSON_MEDIA_TYPE) {
    return bad(serviceStackError(415, 'NotSupportedException', `Content-Type ${JSON.stringify(header(ctx, 'content-type') ?? '')} is not supported here; send application/json`));
  }
  const text = decodeUtf8(ctx.body);
  if (text === undefined) return bad(serviceStackError(400, 'SerializationException', 'The request body is not valid UTF-8'));
  let dto: JsonValue = {};
  if (text.trim() !== '') {
    try {
      dto = JSON.parse(text) as JsonValue;
    } catch (e) {
      return bad(serviceStackError(400, 'SerializationException', `The request body is not valid JSON: ${(e as Error).message}`));
    }
  }
  if (!isJsonObject(dto)) return bad(serviceStackError(400, 'SerializationException', `${op.name} must be a JSON object`));
  const problem = requestProblem(op.request, dto);
  if (problem) return bad(serviceStackError(400, 'SerializationException', problem));

  const query = ctx.url.searchParams;
  const fromExtension = extension === 'json' && !options.honourJsonExtension ? undefined : extension;
  const fromQuery = asFormat(query.get('format'));
  const honouredQuery = fromQuery === 'json' && !options.honourFormatQuery ? undefined : fromQuery;
  const [format, selector]: [Format, JsonServed['selector']] = replyRoute ? ['json', 'reply-route']
    : fromExtension ? [fromExtension, 'extension']
      : honouredQuery ? [honouredQuery, 'format-query']
        : [negotiated(header(ctx, 'accept')), 'negotiated'];

  const rendered = render(op, format);
  const callback = query.get(FORMATS.callbackParam);
  if (format === 'json' && callback && options.honourCallback) {
    return { reply: reply(200, options.jsonpMediaType, options.jsonp(safeCallback(callback), rendered.body.toString('utf8'))), selector, jsonp: true };
  }
  return { reply: reply(200, rendered.mediaType, rendered.body), selector };
}
