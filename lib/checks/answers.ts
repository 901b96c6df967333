// Rules about a whole answer (status, media type, decodable body) that route and format checks
// share. A transport failure is a finding here: these checks own their exchanges.
import { mediaType } from '../http/media-type.js';
import { finding, type Finding } from './check.js';
import type { CheckContext } from './context.js';

export const JSON_TYPES = ['application/json'];
export const JAVASCRIPT_TYPES = ['text/javascript', 'application/javascript', 'application/x-javascript', 'application/ecmascript', 'text/ecmascript'];

/** Status `expected` (or any 2xx when 'success') and a media type among `types`. */
export function statusAndType(ctx: CheckContext, id: string, expected: number | 'success', types?: readonly string[]): Finding[] {
  const r = ctx.response(id);
  if (!r.ok) return [finding(id, r.reason)];
  const out: Finding[] = [];
  const { status, headers } = r.value;
  const statusOk = expected === 'success' ? status >= 200 && status < 300 : status === expected;
  if (!statusOk) out.push(finding(id, `status ${status}, expected ${expected === 'success' ? '2xx' : expected}`, { actual: String(status) }));
  if (types) {
    const type = mediaType(headers['content-type']);
    if (!type || !types.includes(type)) {
      out.push(finding(id, `Content-Type ${headers['content-type'] === undefined ? 'missing' : JSON.stringify(headers['content-type'])}, expected ${types.join(' or ')}`,
        { actual: headers['content-type'] ?? '' }));
    }
  }
  return out;
}

const isOk = (ctx: CheckContext, id: string): boolean => {
  const r = ctx.response(id);
  return r.ok && r.value.status === 200;
};

/** 200, application/json (any parameters), and a body that is a JSON object (what the record checks read). */
export function jsonAnswer(ctx: CheckContext, id: string): Finding[] {
  const out = statusAndType(ctx, id, 200, JSON_TYPES);
  if (!isOk(ctx, id)) return out; // the body of a non-200 answer is not the record
  const record = ctx.jsonRecord(id);
  if (!record.ok) out.push(finding(id, record.reason));
  return out;
}

/** 200, application/xml, and a well-formed XML body holding Envelope > Body > `record` (by local name). */
export function soapAnswer(ctx: CheckContext, id: string, record: string): Finding[] {
  const out = statusAndType(ctx, id, 200, ['application/xml']);
  if (!isOk(ctx, id)) return out;
  const soap = ctx.soap(id, record);
  if (!soap.ok) out.push(finding(id, soap.reason));
  else if (!soap.value.record) {
    out.push(finding(id, `the body holds no Envelope/Body/${record} (root element: ${soap.value.envelope.name})`));
  }
  return out;
}
