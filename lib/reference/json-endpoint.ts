// POST on the JSON routes of 4.1 and 4.3: bind the request DTO as ServiceStack.Text would (or say
// why it cannot), then answer in the format the request's kind calls for (reply route, path
// extension, ?format=, then Accept; the shared classifier decides), wrapped as JSONP when asked.
import type { Format, RequestKind } from '../contract/classify.js';
import { JSON_MEDIA_TYPE, type JsonOperation } from '../contract/operations.js';
import { jsonValueProblem } from '../contract/values.js';
import { jsonSyntaxError } from '../json/parse.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/value.js';
import { serviceStackError } from './error-replies.js';
import { blameOf, decodeUtf8, header, mediaTypeOf, reply, type Reply, type RequestContext } from './reply.js';

/** Renders the operation's response record for one account in a format; with the reply that
 *  carries it as it is, when the renderer keeps one ready. */
export type Render = (op: JsonOperation, format: Format, dto: JsonObject) => { mediaType: string; body: Buffer; reply?: Reply };

export interface JsonEndpointOptions {
  readonly honourJsonExtension: boolean;
  readonly honourFormatQuery: boolean;
  readonly honourCallback: boolean;
  readonly jsonpMediaType: string;
  readonly jsonp: (callback: string, json: string) => string;
}

/** The request DTO, or the error ServiceStack would answer with. */
export function bindJsonRequest(op: JsonOperation, ctx: RequestContext): { readonly dto: JsonObject } | { readonly error: Reply } {
  // Every refusal names the rules the request breaks when it was judged (a judging reference).
  const refuse = (status: number, errorCode: string, message: string) => ({ error: serviceStackError(status, errorCode, `${message}${blameOf(ctx)}`) });
  if (ctx.body.length > 0 && mediaTypeOf(header(ctx, 'content-type')) !== JSON_MEDIA_TYPE) {
    return refuse(415, 'NotSupportedException', `Content-Type ${JSON.stringify(header(ctx, 'content-type') ?? '')} is not supported here; send application/json`);
  }
  const text = decodeUtf8(ctx.body);
  if (text === undefined) return refuse(400, 'SerializationException', 'The request body is not valid UTF-8');
  let dto: JsonValue = {};
  if (text.trim() !== '') {
    try {
      dto = JSON.parse(text) as JsonValue;
    } catch (e) {
      return refuse(400, 'SerializationException', `The request body is not valid JSON: ${jsonSyntaxError(e, text)}`);
    }
  }
  if (!isJsonObject(dto)) return refuse(400, 'SerializationException', `${op.name} must be a JSON object`);
  // ServiceStack.Text fails to bind a member of the wrong type; a .NET int holds 32 bits.
  for (const f of op.request.fields) {
    const v = dto[f.json];
    const problem = v === undefined || v === null ? undefined : jsonValueProblem(f.type, v, { int32: true });
    if (problem) return refuse(400, 'SerializationException', `member ${f.json} of ${op.request.name}: ${problem}`);
  }
  return { dto };
}

/** Every character outside [A-Za-z0-9._] becomes "_" (ServiceStack's SafeVarRef). */
export const safeCallback = (name: string): string => name.replace(/[^A-Za-z0-9._]/g, '_');

export interface JsonServed {
  readonly reply: Reply;
  readonly jsonp?: boolean;
}

export function answerJson(op: JsonOperation, kind: RequestKind, dto: JsonObject, options: JsonEndpointOptions, render: Render): JsonServed {
  // A fault may make the reference ignore a selector: Accept then decides, as if it were absent.
  const ignored = kind.selector === 'extension' && kind.selected === 'json' && !options.honourJsonExtension
    || kind.selector === 'query' && kind.selected === 'json' && !options.honourFormatQuery;
  const format: Format = ignored ? kind.negotiated : kind.format;
  const rendered = render(op, format, dto);
  if (format === 'json' && kind.callback && options.honourCallback) {
    return { reply: reply(200, options.jsonpMediaType, options.jsonp(safeCallback(kind.callback), rendered.body.toString('utf8'))), jsonp: true };
  }
  return { reply: rendered.reply ?? reply(200, rendered.mediaType, rendered.body) };
}
