// One exchange as checks read it: what it is (its kind, by the shared classifier), where it came
// from, and its answer decoded on demand and once (text, JSON, JSONP, XML, the SOAP parts). A
// decoder either yields a value or says, in one line, why it could not (that line becomes a skip or
// a finding). Dropped with the exchange once every check has judged it.
import { classify, type RequestKind } from '../contract/classify.js';
import type { ServiceNamespaces } from '../contract/namespaces.js';
import { SOAP } from '../contract/namespaces.js';
import { STOPPED_RUN, type AnswerHead, type Exchange, type Origin, type RecordedResponse } from '../http/exchange.js';
import { acceptEncodingOf, appliedCodings, canDecode, isOffered, MAX_STACKED_CODINGS, offeredCodings } from '../http/content-coding.js';
import { splitJsonp } from '../json/jsonp.js';
import { parseJson, parseJsonBytes, parseJsonSlowly, type ParsedJson } from '../json/parse.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/value.js';
import { decodeXmlBytes } from '../xml/decode.js';
import { elementChildren, ParsedXml, type XmlElement } from '../xml/model.js';
import { parseXml } from '../xml/parse.js';
import { show } from './check.js';

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

/** Why the body cannot be read as the record, for its content coding: a coding the request offered
 *  was undone when it arrived (decodedAnswer) or by a recorder, or did not decode; one it offered that
 *  the harness cannot undo, or one it did not ask for (whoever decoded it), is named rather than its
 *  bytes reported as broken text. Undefined when the body is readable. `accept`: the request's
 *  Accept-Encoding. The reports say it too. */
export function codingProblem(r: RecordedResponse, accept: string | undefined): string | undefined {
  const coded = r.contentCoding;
  if (coded?.error) return coded.codings.length > MAX_STACKED_CODINGS ? `the body is not decoded: ${coded.error}` : `the body does not decode as ${coded.codings.join(', ')}: ${coded.error}`;
  const coding = r.headers['content-encoding']?.trim().toLowerCase();
  if (!coding || coding === 'identity') return undefined;
  const said = `the body is encoded (Content-Encoding ${show(coding)}), which the request`;
  const codings = appliedCodings(coding);
  const offered = offeredCodings(accept);
  // Not asked for: a client that offered none reads the coded bytes, though a recorder decoded them.
  if (!codings.every((c) => isOffered(c, offered))) return `${said} did not ask for; not decoded${coded?.byRecorder ? ' (the recording holds it decoded by its recorder)' : ''}`;
  if (coded) return undefined;
  // Offered: left as received because the harness has no decoder for it (zstd), or by a recording.
  const cannot = codings.filter((c) => !canDecode(c));
  if (!cannot.length) return `${said} offered; not decoded`;
  return `${said} offered but the harness cannot decode${cannot.length < codings.length ? ` (${show(cannot.join(', '))})` : ''}; not decoded`;
}

export class ExchangeView {
  readonly kind: RequestKind;
  private readonly memo = new Map<string, unknown>();

  constructor(readonly exchange: Exchange, readonly settings: CheckSettings, kind?: RequestKind) {
    this.kind = kind ?? classify(exchange.request);
  }

  get id(): string {
    return this.exchange.id;
  }

  get origin(): Origin {
    return this.exchange.origin;
  }

  /** Member names of an object of this exchange's body (Object.keys), listed once for the checks and
   *  the learner alike: a record read name by name is a dictionary object, whose names are sorted
   *  again on every listing. The plain JSON path hands over its large objects' names as it read them
   *  (ParsedJson.listed). Listed by Object.getOwnPropertyNames, the same names in the same order for
   *  a parsed JSON object (every name of one is its own, enumerable, and a string): V8 lists those of
   *  plain-json's small objects in about half the time Object.keys takes (bench/, 2026-11). */
  readonly keysOf = (o: JsonObject): readonly string[] => {
    const listed = (this.listed ??= new Map()).get(o);
    if (listed) return listed;
    const keys = Object.getOwnPropertyNames(o);
    this.listed.set(o, keys);
    return keys;
  };
  private listed: Map<JsonObject, readonly string[]> | undefined;

  /** The values of an object whose names the plain JSON path listed, in keysOf's order, else
   *  undefined: read by place, where a large object's every value would be looked up by name. */
  readonly valuesOf = (o: JsonObject): readonly JsonValue[] | undefined => this.listedValues?.get(o);
  private listedValues: Map<JsonObject, readonly JsonValue[]> | undefined;

  /** A value derived from this exchange, made once however many checks ask (the slots of its record,
   *  walked by every type check, are the costly one). */
  once<T>(what: string, make: (view: this) => T): T {
    // One lookup when made (the common case: a score of checks ask for the same few values).
    const made = this.memo.get(what);
    if (made !== undefined || this.memo.has(what)) return made as T;
    const value = make(this);
    this.memo.set(what, value);
    return value;
  }

  /** A value `once` made already under `what`, else undefined: never makes it. */
  made<T>(what: string): T | undefined {
    return this.memo.get(what) as T | undefined;
  }

  /** The response, or why there is none ("no response: connection refused by …"); where its head
   *  came without its body (Exchange.answerHead), why the body is missing ("response body exceeded
   *  the 10 MiB cap"): there was a response. */
  response(): Decoded<RecordedResponse> {
    return (this.answer ??= this.responseAnew());
  }
  private answer: Decoded<RecordedResponse> | undefined;
  private responseAnew(): Decoded<RecordedResponse> {
    const ex = this.exchange;
    if (!ex.response) return no(ex.error?.kind === 'not-sent' ? ex.error.message : ex.answerHead ? ex.error?.message ?? 'no response body' : `no response: ${ex.error?.message ?? 'unknown error'}`);
    return ok(ex.response);
  }

  /** The answer's status line and header fields: the response's, or those a recording holds of an
   *  answer whose body it does not (Exchange.answerHead). What a check of side 'head' reads. */
  head(): Decoded<AnswerHead> {
    const head = this.exchange.answerHead;
    return head ? ok(head) : this.response();
  }

  /** Why nothing of this exchange can be judged by `check`, or undefined: it was never sent (the
   *  run's request cap), or a recording holds its request but not its answer (a check of the head
   *  judges one whose head it holds), or the harness's client could not read an answer HTTP allows
   *  (neither of which a check of the request needs). A check then skips, never fails. */
  unjudgeableBy(check: { readonly side?: 'request' | 'head' }): string | undefined {
    const e = this.exchange.error;
    if (e?.kind === 'not-sent') return e.message.includes(STOPPED_RUN) ? `not sent (${STOPPED_RUN})` : 'not sent (request cap reached)';
    if (e?.kind !== 'not-recorded' && e?.kind !== 'not-read') return undefined;
    return check.side === 'request' || (check.side === 'head' && this.exchange.answerHead) ? undefined : e.message;
  }

  /** The body's bytes as the client reads them (a content coding the request offered, undone). */
  body(): Decoded<Buffer> {
    return this.once('body', () => {
      const r = this.response();
      if (!r.ok) return r;
      const encoded = codingProblem(r.value, acceptEncodingOf(this.exchange.request.headers));
      return encoded ? no(encoded) : ok(r.value.body);
    });
  }

  /** The body as UTF-8 text (JSON and JSONP must be UTF-8: RFC 8259 8.1). A leading byte-order mark
   *  is dropped, as WHATWG's UTF-8 decode (so every browser's fetch) drops it: tolerated, not judged. */
  text(): Decoded<string> {
    return this.once('text', () => {
      const r = this.response();
      if (!r.ok) return r;
      const encoded = codingProblem(r.value, acceptEncodingOf(this.exchange.request.headers));
      if (encoded) return no(encoded);
      try {
        return ok(UTF8.decode(r.value.body));
      } catch {
        return no('the body is not valid UTF-8');
      }
    });
  }

  json(): Decoded<ParsedJson> {
    return this.once('json', () => {
      // Most answers are read from their bytes, undecoded (plainJsonBytes); the rest as text, by the
      // measured path at once: the plain path, tried on the bytes already, gives the same or nothing.
      const b = this.body();
      const read = b.ok ? parseJsonBytes(b.value) : undefined;
      if (read) return ok(this.listing(read));
      const t = this.text();
      if (!t.ok) return t;
      const parsed = parseJsonSlowly(t.value);
      return parsed.ok ? ok(this.listing(parsed.json)) : no(`the body is ${parsed.error}`);
    });
  }

  /** `json`, its listed names taken into keysOf's memo. */
  private listing(json: ParsedJson): ParsedJson {
    if (json.listed) for (const [o, keys] of json.listed) (this.listed ??= new Map()).set(o, keys);
    if (json.listedValues) for (const [o, values] of json.listedValues) (this.listedValues ??= new Map()).set(o, values);
    return json;
  }

  jsonp(): Decoded<Jsonp> {
    return this.once('jsonp', () => {
      const t = this.text();
      if (!t.ok) return t;
      const parts = splitJsonp(t.value);
      if (!parts.ok) return no(parts.error);
      const parsed = parseJson(parts.json);
      return parsed.ok ? ok({ callback: parts.callback, json: this.listing(parsed.json) }) : no(`the text inside the callback is ${parsed.error}`);
    });
  }

  xml(): Decoded<XmlElement> {
    return this.once('xml', () => {
      const r = this.response();
      if (!r.ok) return r;
      const encoded = codingProblem(r.value, acceptEncodingOf(this.exchange.request.headers));
      if (encoded) return no(encoded);
      const text = decodeXmlBytes(r.value.body, r.value.headers['content-type']);
      if (!text.ok) return no(text.error);
      const doc = parseXml(text.text);
      if (doc.ok) return ok(doc.root);
      return no(doc.limit ? `the body is XML that ${doc.error}` : `the body is not well-formed XML (${doc.error})`);
    });
  }

  /** The request's body as JSON (a client's request, for the request checks). */
  requestJson(): Decoded<ParsedJson> {
    return this.once('requestJson', () => {
      const { body, notUtf8At } = this.exchange.request;
      if (body === undefined || body === '') return no('the request has no body');
      // JSON between systems is UTF-8 (RFC 8259 8.1).
      if (notUtf8At !== undefined) return no(`the request body is not UTF-8 (a bad byte at offset ${notUtf8At})`);
      const parsed = parseJson(body);
      return parsed.ok ? ok(parsed.json) : no(`the request body is ${parsed.error}`);
    });
  }

  /** The request's body as XML. */
  requestXml(): Decoded<XmlElement> {
    return this.once('requestXml', () => {
      const { body, notUtf8At } = this.exchange.request;
      if (body === undefined || body === '') return no('the request has no body');
      // A SOAP request is sent as text/xml; charset=utf-8 (4.2): its bytes are UTF-8.
      if (notUtf8At !== undefined) return no(`the request body is not UTF-8 (a bad byte at offset ${notUtf8At})`);
      const doc = parseXml(body);
      if (doc.ok) return ok(doc.root);
      return no(doc.limit ? `the request body is XML that ${doc.error}` : `the request body is not well-formed XML (${doc.error})`);
    });
  }

  /** The answer's JSON value, when a check has already parsed it (JSONP unwrapped); never parses. */
  parsedJson(): JsonValue | undefined {
    for (const what of ['json', 'jsonp']) {
      const d = this.memo.get(what) as Decoded<ParsedJson | Jsonp> | undefined;
      if (d?.ok) return 'callback' in d.value ? d.value.json.value : d.value.value;
    }
    return undefined;
  }

  /** The answer as a check already parsed it, for the redactor's learning: its JSON value (JSONP
   *  unwrapped), or its XML tree; never parses. */
  parsedBody(): JsonValue | ParsedXml | undefined {
    const json = this.parsedJson();
    if (json !== undefined) return json;
    const xml = this.memo.get('xml') as Decoded<XmlElement> | undefined;
    return xml?.ok ? new ParsedXml(xml.value) : undefined;
  }

  /** A 200 response's JSON object, for the record checks; a JSONP answer is unwrapped. */
  jsonRecord(): Decoded<{ json: ParsedJson; root: JsonObject }> {
    return this.once('jsonRecord', () => this.jsonRecordAnew());
  }
  private jsonRecordAnew(): Decoded<{ json: ParsedJson; root: JsonObject }> {
    const r = this.response();
    if (!r.ok) return r;
    if (r.value.status !== 200) return no(`status ${r.value.status}, not a record`);
    const parsed = this.kind.jsonp ? this.jsonp() : this.json();
    if (!parsed.ok) return parsed;
    const json = 'callback' in parsed.value ? parsed.value.json : parsed.value;
    return isJsonObject(json.value) ? ok({ json, root: json.value }) : no('the body is JSON but not an object');
  }

  /** A 200 response's SOAP parts, located by local name: namespaces are the envelope checks' job. */
  soap(recordName: string): Decoded<SoapParts> {
    return this.once(`soap ${recordName}`, (): Decoded<SoapParts> => {
      const r = this.response();
      if (!r.ok) return r;
      if (r.value.status !== 200) return no(`status ${r.value.status}, not a SOAP response`);
      const doc = this.xml();
      if (!doc.ok) return doc;
      const envelope = doc.value;
      const body = elementChildren(envelope).find((e) => e.name === SOAP.body);
      const record = body && elementChildren(body).find((e) => e.name === recordName);
      return ok({ envelope, ...(body ? { body } : {}), ...(record ? { record } : {}) });
    });
  }
}
