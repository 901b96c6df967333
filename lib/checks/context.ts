// What checks read: the recorded exchanges, decoded on demand and once each. A decoder either
// yields a value or says, in one line, why it could not (that line becomes a skip or a finding).
import type { ServiceNamespaces } from '../contract/namespaces.js';
import type { Exchange, RecordedResponse } from '../http/exchange.js';
import { isJsonObject, type JsonObject } from '../json/node.js';
import { splitJsonp } from '../json/jsonp.js';
import { parseJson, type ParsedJson } from '../json/parse.js';
import { elementChildren, type XmlElement } from '../xml/model.js';
import { parseXml } from '../xml/parse.js';
import { decodeXmlBytes } from '../xml/decode.js';

export type Decoded<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

const ok = <T>(value: T): Decoded<T> => ({ ok: true, value });
const no = <T>(reason: string): Decoded<T> => ({ ok: false, reason });

export interface CheckSettings {
  readonly namespaces: ServiceNamespaces;
}


export interface Jsonp {
  readonly callback: string;
  readonly json: ParsedJson;
}

export interface SoapParts {
  readonly envelope: XmlElement;
  readonly body?: XmlElement;
  /** The Body's element named as the response record, located by local name only. */
  readonly record?: XmlElement;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The harness never sends Accept-Encoding, so any content coding was not asked for: say which one
 *  rather than report its bytes as broken text. Undefined when the body is not encoded. */
function contentCoding(r: RecordedResponse): string | undefined {
  const coding = r.headers['content-encoding']?.trim().toLowerCase();
  if (!coding || coding === 'identity') return undefined;
  return `the body is encoded (Content-Encoding: ${coding}), which the request did not ask for; not decoded`;
}

export class CheckContext {
  private readonly memo = new Map<string, unknown>();

  constructor(private readonly exchanges: ReadonlyMap<string, Exchange>, readonly settings: CheckSettings) {}

  private once<T>(kind: string, id: string, make: () => T): T {
    const key = `${kind}\0${id}`;
    if (!this.memo.has(key)) this.memo.set(key, make());
    return this.memo.get(key) as T;
  }

  exchange(id: string): Exchange | undefined {
    return this.exchanges.get(id);
  }

  /** The response, or why there is none ("no response: connection refused by …"). */
  response(id: string): Decoded<RecordedResponse> {
    const ex = this.exchanges.get(id);
    if (!ex) return no('not sent in this run');
    if (!ex.response) return no(ex.error?.kind === 'not-sent' ? ex.error.message : `no response: ${ex.error?.message ?? 'unknown error'}`);
    return ok(ex.response);
  }

  /** True when the exchange was never sent (the run's request cap): nothing can be judged. */
  notSent(id: string): boolean {
    const ex = this.exchanges.get(id);
    return !ex || ex.error?.kind === 'not-sent';
  }

  /** The body as UTF-8 text (JSON and JSONP must be UTF-8: RFC 8259 8.1). A leading byte-order mark
   *  is dropped, as WHATWG's UTF-8 decode (so every browser's fetch) drops it: tolerated, not judged. */
  text(id: string): Decoded<string> {
    return this.once('text', id, () => {
      const r = this.response(id);
      if (!r.ok) return r;
      const encoded = contentCoding(r.value);
      if (encoded) return no(encoded);
      try {
        return ok(UTF8.decode(r.value.body));
      } catch {
        return no('the body is not valid UTF-8');
      }
    });
  }

  json(id: string): Decoded<ParsedJson> {
    return this.once('json', id, () => {
      const t = this.text(id);
      if (!t.ok) return t;
      const parsed = parseJson(t.value);
      return parsed.ok ? ok(parsed.json) : no(`the body is ${parsed.error}`);
    });
  }

  jsonp(id: string): Decoded<Jsonp> {
    return this.once('jsonp', id, () => {
      const t = this.text(id);
      if (!t.ok) return t;
      const parts = splitJsonp(t.value);
      if (!parts.ok) return no(parts.error);
      const parsed = parseJson(parts.json);
      return parsed.ok ? ok({ callback: parts.callback, json: parsed.json }) : no(`the text inside the callback is ${parsed.error}`);
    });
  }

  xml(id: string): Decoded<XmlElement> {
    return this.once('xml', id, () => {
      const r = this.response(id);
      if (!r.ok) return r;
      const encoded = contentCoding(r.value);
      if (encoded) return no(encoded);
      const text = decodeXmlBytes(r.value.body, r.value.headers['content-type']);
      if (!text.ok) return no(text.error);
      const doc = parseXml(text.text);
      if (doc.ok) return ok(doc.root);
      return no(doc.limit ? `the body is XML that ${doc.error}` : `the body is not well-formed XML (${doc.error})`);
    });
  }

  /** A 200 response's JSON object, for the record checks; JSONP exchanges are unwrapped. */
  jsonRecord(id: string, jsonp = false): Decoded<{ json: ParsedJson; root: JsonObject }> {
    const r = this.response(id);
    if (!r.ok) return r;
    if (r.value.status !== 200) return no(`status ${r.value.status}, not a record`);
    const parsed = jsonp ? this.jsonp(id) : this.json(id);
    if (!parsed.ok) return parsed;
    const json = 'callback' in parsed.value ? parsed.value.json : parsed.value;
    return isJsonObject(json.value) ? ok({ json, root: json.value }) : no('the body is JSON but not an object');
  }

  /** A 200 response's SOAP parts, located by local name: namespaces are the envelope checks' job. */
  soap(id: string, recordName: string): Decoded<SoapParts> {
    const r = this.response(id);
    if (!r.ok) return r;
    if (r.value.status !== 200) return no(`status ${r.value.status}, not a SOAP response`);
    const doc = this.xml(id);
    if (!doc.ok) return doc;
    const envelope = doc.value;
    const body = elementChildren(envelope).find((e) => e.name === 'Body');
    const record = body && elementChildren(body).find((e) => e.name === recordName);
    return ok({ envelope, ...(body ? { body } : {}), ...(record ? { record } : {}) });
  }
}
