// Requests generated from the contract (--generate): fast-check arbitraries derived from the request
// records of 2.2 and the routes of section 4, valid ones and deliberately invalid ones. Pure: values
// only, no I/O. A generated value carries its shrink context (fast-check's Value), so a failure found
// on it can be shrunk (shrink.ts) towards members left out, shorter strings, simpler characters, zero
// and the plainest route. Everything is derived from lib/contract: a field's type decides its values,
// and the contract's own type rule (values.ts) decides which values are wrong for it.
import fc from 'fast-check';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { INT32_MAX, INT32_MIN } from '../contract/formats.js';
import { SOAP11_ENVELOPE, SOAP12_ENVELOPE, type ServiceNamespaces } from '../contract/namespaces.js';
import {
  FORMATS, JSON_MEDIA_TYPE, OPERATIONS, replyRoute, SOAP_REQUEST_MEDIA_TYPE, type JsonOperation, type Operation, type SoapOperation,
} from '../contract/operations.js';
import { sensitivityOfName } from '../contract/sensitivity.js';
import type { Field, FieldType, Shape } from '../contract/types.js';
import { jsonValueProblem } from '../contract/values.js';
import { stringEnd } from '../json/limits.js';
import type { JsonObject, JsonValue } from '../json/value.js';
import { el, text as xmlText, type XmlElement } from '../xml/model.js';
import { writeXml, XML_COMPACT } from '../xml/write.js';

/** One generated request, before the run's own headers (--header) are added. */
export interface GeneratedRequest {
  readonly operation: Operation;
  readonly intent: 'valid' | 'invalid';
  /** What it exercises, in a few words ("malformed JSON: cut after 12 characters"). */
  readonly what: string;
  readonly method: 'POST';
  /** Path and query. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Where the body's values under sensitive names stand (Origin.ownValues), when it is a JSON text
   *  written by jsonText (or the start of one). */
  readonly ownValues?: readonly number[];
}

/** An oversized body: over 1 MiB, a thousand times a real request (the spec states no limit, 8). */
export const OVERSIZED_BODY_BYTES = 1024 * 1024 + 1024;

// ---- values of 2.2's types ------------------------------------------------------------------------

/** What strings are made of: plain characters first (what a shrunk string keeps), then the
 *  characters that trouble parsers, serialisers, databases and terminals: quotes and backslashes,
 *  markup and ]]>, whitespace of every kind, NUL and other controls, non-Latin scripts, combining
 *  marks, astral characters, bidi overrides, byte-order marks, line and paragraph separators. */
const STRING_UNITS: readonly string[] = [
  'a', 'Z', '0', ' ', '\'', '"', '\\', '/', '<', '>', '&', ']]>', '&amp;', '<!--', '%', '{', '\t', '\n', '\r\n',
  '\u0000', '\u001f', '\u007f', '\u00a0', '\u200b', '\u2028', '\ufeff', '\u202e', 'é', 'ß', 'Δ', '東京', 'e\u0301', '😀', '\\u0041',
];
/** A long run among the pieces: strings of thousands of characters. */
const longRun = fc.integer({ min: 1000, max: 10_000 }).map((n) => 'x'.repeat(n));

/** Empty, short, long, unicode, XML- and JSON-special, whitespace: the string is a list of pieces,
 *  so shrinking drops pieces one by one down to the one that matters. */
export const generatedString: fc.Arbitrary<string> = fc.array(
  fc.oneof({ weight: 40, arbitrary: fc.constantFrom(...STRING_UNITS) }, { weight: 1, arbitrary: longRun }),
  { maxLength: 12 },
).map((pieces) => pieces.join(''));

/** Integers anywhere in .NET's int range, with its edges often. */
export const generatedInteger: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: INT32_MIN, max: INT32_MAX }),
  fc.constantFrom(0, -1, 1, INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1),
);

/** Every enum name the contract shows anywhere (open enums, requests and responses), then names it never shows. */
const SEEN_ENUM_NAMES: readonly string[] = (() => {
  const seen = new Set<string>();
  const walk = (s: Shape) => {
    for (const f of s.fields) {
      const t = f.type.kind === 'array' ? f.type.item : f.type;
      if (t.kind === 'enum' && !t.closed) for (const v of t.values) seen.add(v);
      if (t.kind === 'object') walk(t.shape);
      if (t.kind === 'map') walk(t.value);
    }
  };
  for (const op of OPERATIONS) { walk(op.request); walk(op.response); }
  return [...seen];
})();
const UNSEEN_ENUM_NAMES = ['Provider', 'None', 'Value2', 'NotAMember'];

export function generatedValue(type: FieldType): fc.Arbitrary<JsonValue> {
  switch (type.kind) {
    case 'string': return generatedString;
    case 'integer': return generatedInteger;
    case 'boolean': return fc.boolean();
    case 'enum': return type.closed ? fc.constantFrom(...type.values)
      : fc.constantFrom(...new Set([...type.values, ...SEEN_ENUM_NAMES, ...UNSEEN_ENUM_NAMES]));
    // 2.2's requests hold none of these; derived anyway so a new request field needs no code here.
    case 'datetime': return fc.constant('2024-02-29T12:00:00.0000000');
    case 'guid': return fc.constant('0123456789abcdef0123456789abcdef');
    case 'array': return fc.array(generatedValue(type.item), { maxLength: 3 });
    case 'object': return generatedRecord(type.shape);
    case 'map': return fc.dictionary(generatedString, generatedRecord(type.value), { maxKeys: 2 });
  }
}

const ABSENT: unique symbol = Symbol('absent');

/** A member: left out (what a shrink tries first), null, or a value of its type. Required members
 *  are not shown (2.4), and ServiceStack leaves a null member at its default. */
const memberOf = (f: Field): fc.Arbitrary<JsonValue | typeof ABSENT> =>
  fc.oneof({ withCrossShrink: true }, { weight: 1, arbitrary: fc.constant(ABSENT) }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 6, arbitrary: generatedValue(f.type) });

/** A request record of `shape` (2.2): every member present, null or left out. */
export function generatedRecord(shape: Shape): fc.Arbitrary<JsonObject> {
  const fields = shape.fields.filter((f) => f.only !== 'soap');
  return fc.tuple(...fields.map(memberOf)).map((values) => {
    const out: JsonObject = {};
    values.forEach((v, i) => { if (v !== ABSENT) out[fields[i]!.json] = v; });
    return out;
  });
}

// ---- JSON texts and their own values ----------------------------------------------------------------

/** JSON.stringify(value, null, indent), and where each scalar under a member named as sensitive (at
 *  any depth) stands in it: [start, end, 1 when a credential's name holds it, else 0], in order
 *  (Origin.ownValues). Found by the lengths of what the text is made of (a string's up to its closing
 *  quote, found by indexOf), so the redactor reads the values the harness sent where they stand
 *  instead of walking the text for them. None when the lengths do not add up to the text. */
export function jsonText(value: JsonValue, indent: 0 | 2 = 0): { readonly text: string; readonly ownValues?: number[] } {
  const text = JSON.stringify(value, null, indent);
  const own: number[] = [];
  let at = 0;
  let adds = true;
  // under: 0 no sensitive name above, 1 a personal one only, 2 a credential's.
  const walk = (v: JsonValue, depth: number, under: number): void => {
    if (v === null || typeof v !== 'object') {
      const n = typeof v === 'string' ? stringEnd(text, at) + 1 - at : JSON.stringify(v).length;
      if (typeof v === 'string' && text.charCodeAt(at) !== 0x22) adds = false;
      if (under) own.push(at, at + n, under === 2 ? 1 : 0);
      at += n;
      return;
    }
    const keys = Array.isArray(v) ? undefined : Object.keys(v).filter((k) => v[k] !== undefined);
    const n = keys ? keys.length : (v as JsonValue[]).length;
    at++; // [ or {
    for (let i = 0; i < n; i++) {
      at += (i ? 1 : 0) + (indent ? 1 + (depth + 1) * indent : 0); // a comma, a line break and its indent
      if (keys) {
        const k = keys[i]!;
        const kind = sensitivityOfName(k);
        at += JSON.stringify(k).length + (indent ? 2 : 1);
        walk((v as JsonObject)[k]!, depth + 1, Math.max(under, kind === 'credential' ? 2 : kind === 'personal' ? 1 : 0));
      } else walk((v as JsonValue[])[i] ?? null, depth + 1, under);
    }
    at += (n && indent ? 1 + depth * indent : 0) + 1; // ] or }, on a line of its own
  };
  walk(value, 0, 0);
  return adds && at === text.length ? { text, ownValues: own } : { text };
}

/** A JSON text's own values that start within its first `length` characters. */
const ownWithin = (own: readonly number[], length: number): number[] => {
  let n = 0;
  while (n < own.length && own[n]! < length) n += 3;
  return own.slice(0, n);
};

// ---- JSON operations (4.1, 4.3) -------------------------------------------------------------------

/** How a valid JSON request reaches its operation: the simplest form first. */
interface JsonForm {
  readonly route: 'custom' | 'reply';
  readonly selector: 'none' | 'extension' | 'query';
  readonly callback: 'none' | 'plain' | 'dotted';
  readonly charset: boolean;
  readonly indent: 0 | 2;
}

const jsonForm: fc.Arbitrary<JsonForm> = fc.record({
  route: fc.constantFrom('custom', 'reply'),
  selector: fc.constantFrom('none', 'extension', 'query'),
  callback: fc.oneof({ withCrossShrink: true }, { weight: 6, arbitrary: fc.constant('none' as const) }, { weight: 1, arbitrary: fc.constantFrom('plain' as const, 'dotted' as const) }),
  charset: fc.boolean(),
  indent: fc.constantFrom(0 as const, 2 as const),
});

const CALLBACKS = { plain: 'generatedCallback', dotted: 'jQuery_3.cb' } as const;

function jsonPath(op: JsonOperation, form: Pick<JsonForm, 'route' | 'selector' | 'callback'>): string {
  if (form.route === 'reply') return replyRoute(op) + (form.callback === 'none' ? '' : `?${FORMATS.callbackParam}=${CALLBACKS[form.callback]}`);
  const query = [form.selector === 'query' ? FORMATS.jsonQuery : '', form.callback === 'none' ? '' : `${FORMATS.callbackParam}=${CALLBACKS[form.callback]}`].filter(Boolean);
  return `${op.route}${form.selector === 'extension' ? FORMATS.jsonSuffix : ''}${query.length ? `?${query.join('&')}` : ''}`;
}

const jsonHeaders = (charset: boolean, type = JSON_MEDIA_TYPE): Record<string, string> =>
  ({ 'content-type': charset ? `${type}; charset=utf-8` : type });

const describeForm = (f: JsonForm) =>
  [f.route === 'reply' ? '/json/reply' : '', f.selector === 'extension' ? FORMATS.jsonSuffix : f.selector === 'query' ? `?${FORMATS.jsonQuery}` : '', f.callback !== 'none' ? 'JSONP' : ''].filter(Boolean).join(', ');

function validJson(op: JsonOperation): fc.Arbitrary<GeneratedRequest> {
  return fc.record({ record: generatedRecord(op.request), form: jsonForm }).map(({ record, form }) => {
    const { text, ownValues } = jsonText(record, form.indent);
    return {
      operation: op, intent: 'valid', method: 'POST',
      what: describeForm(form) || 'the custom route, no selector',
      path: jsonPath(op, form), headers: jsonHeaders(form.charset), body: text, ...(ownValues ? { ownValues } : {}),
    };
  });
}

/** Values that are not of a type, by the contract's own rule: offered in turn to every field. */
const WRONG_VALUES: readonly JsonValue[] = [42, 'text', true, 1.5, '42', 2147483648, -2147483649, '', 'two words', [], {}, ['x'], { value: 1 }];
export const wrongValuesFor = (type: FieldType): readonly JsonValue[] =>
  WRONG_VALUES.filter((v) => jsonValueProblem(type, v, { int32: true }) !== undefined);

/** Request bodies that are JSON but not a JSON object (written by jsonText). */
const NOT_OBJECTS: readonly JsonValue[] = [[], 'text', 42, null, true, [{}]];
const WRONG_JSON_TYPES = ['text/plain; charset=utf-8', 'application/xml', 'application/x-www-form-urlencoded'];

function invalidJson(op: JsonOperation): fc.Arbitrary<GeneratedRequest> {
  const fields = op.request.fields;
  const base = fc.record({ record: generatedRecord(op.request), route: fc.constantFrom('custom' as const, 'reply' as const) });
  // `body`: a text jsonText wrote (or the start of one) with its own values, or any other text.
  const request = (route: 'custom' | 'reply', what: string, body: string | ReturnType<typeof jsonText>, headers = jsonHeaders(false)): GeneratedRequest => ({
    operation: op, intent: 'invalid', method: 'POST', what, path: jsonPath(op, { route, selector: 'none', callback: 'none' }), headers,
    ...(typeof body === 'string' ? { body } : { body: body.text, ...(body.ownValues ? { ownValues: body.ownValues } : {}) }),
  });
  const kinds: fc.WeightedArbitrary<GeneratedRequest>[] = [
    // A proper prefix of a JSON object's text is never JSON (its closing brace is missing).
    { weight: 2, arbitrary: fc.tuple(base, fc.integer({ min: 1, max: 4096 })).map(([{ record, route }, cut]) => {
      const { text, ownValues } = jsonText(record);
      const at = Math.min(cut, text.length - 1);
      return request(route, `malformed JSON: cut after ${at} characters`, { text: text.slice(0, at), ...(ownValues ? { ownValues: ownWithin(ownValues, at) } : {}) });
    }) },
    { weight: 1, arbitrary: base.map(({ record, route }) => request(route, 'malformed JSON: a trailing comma', `${JSON.stringify(record).slice(0, -1)},}`)) },
    { weight: 1, arbitrary: fc.tuple(base, fc.constantFrom(...NOT_OBJECTS)).map(([{ route }, value]) => request(route, `a JSON ${Array.isArray(value) ? 'array' : 'value'}, not an object`, jsonText(value))) },
    { weight: 2, arbitrary: fc.tuple(base, fc.constantFrom(...WRONG_JSON_TYPES)).map(([{ record, route }, type]) =>
      request(route, `Content-Type ${type}`, jsonText(record), { 'content-type': type })) },
    { weight: 1, arbitrary: base.map(({ record, route }) => {
      const field = fields.find((f) => f.type.kind === 'string')!;
      return request(route, `an oversized body (${OVERSIZED_BODY_BYTES} bytes)`, oversized(record, field.json));
    }) },
  ];
  if (fields.length) {
    kinds.push({ weight: 4, arbitrary: fc.tuple(base, fc.nat(), fc.nat()).map(([{ record, route }, i, j]) => {
      const f = fields[i % fields.length]!;
      const wrong = wrongValuesFor(f.type);
      const value = wrong[j % wrong.length]!;
      return request(route, `${f.json} is ${JSON.stringify(value)}, not ${f.type.kind === 'enum' ? 'an enum name' : `a ${f.type.kind}`}`, jsonText({ ...record, [f.json]: value }));
    }) });
  }
  return fc.oneof(...kinds);
}

/** The record's text padded, inside `member`, to just over OVERSIZED_BODY_BYTES. */
function oversized(record: JsonObject, member: string): ReturnType<typeof jsonText> {
  const text = JSON.stringify({ ...record, [member]: '' });
  return jsonText({ ...record, [member]: 'x'.repeat(Math.max(0, OVERSIZED_BODY_BYTES - text.length + 1)) });
}

// ---- SOAP (4.2) -------------------------------------------------------------------------------------

/** Legitimate ways of writing the one SOAP 1.1 request: prefixes (or none), a Header, an XML
 *  declaration, indentation, an open-and-close empty element, a quoted SOAPAction, ?format=soap11. */
interface SoapForm {
  readonly envelopePrefix: 's' | 'soap' | 'SOAP-ENV' | '';
  readonly requestPrefix: '' | 'req';
  readonly header: 'none' | 'empty' | 'entry';
  readonly declaration: boolean;
  readonly indent: 0 | 2;
  readonly selfClose: boolean;
  readonly quotedAction: boolean;
  readonly charset: boolean;
  readonly formatQuery: boolean;
}

const soapForm: fc.Arbitrary<SoapForm> = fc.record({
  envelopePrefix: fc.constantFrom('s' as const, 'soap' as const, 'SOAP-ENV' as const, '' as const),
  requestPrefix: fc.constantFrom('' as const, 'req' as const),
  header: fc.constantFrom('none' as const, 'empty' as const, 'entry' as const),
  declaration: fc.boolean(),
  indent: fc.constantFrom(0 as const, 2 as const),
  selfClose: fc.boolean(),
  quotedAction: fc.boolean(),
  charset: fc.boolean(),
  formatQuery: fc.boolean(),
});

/** A SOAP Header entry a receiver may ignore (no mustUnderstand). */
const HEADER_ENTRY_NS = 'urn:example:conformance-trace';

function envelope(envNs: string, requestNs: string | null, op: SoapOperation, header: SoapForm['header'], padding = ''): XmlElement {
  const entry = el(HEADER_ENTRY_NS, 'Trace', [xmlText(padding || 'generated')]);
  const head = header === 'none' ? [] : [el(envNs, 'Header', header === 'entry' ? [entry] : [])];
  return el(envNs, 'Envelope', [...head, el(envNs, 'Body', [el(requestNs, op.name)])]);
}

function soapText(root: XmlElement, form: SoapForm, ns: ServiceNamespaces): string {
  const prefixes: Record<string, string> = { [root.ns!]: form.envelopePrefix, [HEADER_ENTRY_NS]: 't' };
  prefixes[ns.request] = form.requestPrefix;
  return writeXml(root, { ...XML_COMPACT, declaration: form.declaration, indent: form.indent, selfClose: form.selfClose, prefixes });
}

/** 4.2's request media type without its parameter: `charset` adds it back. */
const SOAP_TYPE = SOAP_REQUEST_MEDIA_TYPE.split(';')[0]!;

const soapHeaders = (op: SoapOperation, form: Pick<SoapForm, 'quotedAction' | 'charset'>, type = SOAP_TYPE, action: string = op.soapAction) =>
  ({ 'content-type': form.charset ? `${type}; charset=utf-8` : type, soapaction: form.quotedAction ? `"${action}"` : action });

const soapPath = (op: SoapOperation, formatQuery: boolean) => `${op.route}${formatQuery ? `?${FORMATS.soapQuery}` : ''}`;

function validSoap(op: SoapOperation, ns: ServiceNamespaces): fc.Arbitrary<GeneratedRequest> {
  return soapForm.map((form) => ({
    operation: op, intent: 'valid', method: 'POST',
    what: `envelope prefix ${form.envelopePrefix || 'none'}, ${form.header === 'none' ? 'no Header' : `${form.header === 'entry' ? 'a' : 'an empty'} Header`}${form.declaration ? ', XML declaration' : ''}`,
    path: soapPath(op, form.formatQuery), headers: soapHeaders(op, form), body: soapText(envelope(SOAP11_ENVELOPE, ns.request, op, form.header), form, ns),
  }));
}

const WRONG_NAMESPACES = ['urn:example:not-the-request-namespace', ''];
const WRONG_ACTIONS = ['ConfirmEmailRequest', 'SupportStateUserLoginRequest', 'urn:example:Other'];
const WRONG_SOAP_TYPES = ['application/json', 'text/plain', 'application/soap+xml'];

function invalidSoap(op: SoapOperation, ns: ServiceNamespaces): fc.Arbitrary<GeneratedRequest> {
  const request = (form: SoapForm, what: string, body: string, headers = soapHeaders(op, form)): GeneratedRequest =>
    ({ operation: op, intent: 'invalid', method: 'POST', what, path: soapPath(op, form.formatQuery), headers, body });
  const valid = (form: SoapForm) => soapText(envelope(SOAP11_ENVELOPE, ns.request, op, form.header), form, ns);
  return fc.oneof(
    { weight: 2, arbitrary: fc.tuple(soapForm, fc.boolean()).map(([form, ownType]) => {
      const type = ownType ? 'application/soap+xml' : SOAP_TYPE;
      return request(form, `a SOAP 1.2 envelope as ${type}`, soapText(envelope(SOAP12_ENVELOPE, ns.request, op, form.header), form, ns), soapHeaders(op, form, type));
    }) },
    { weight: 2, arbitrary: fc.tuple(soapForm, fc.constantFrom(...WRONG_NAMESPACES)).map(([form, wrong]) =>
      request(form, `${op.name} in ${wrong ? 'another namespace' : 'no namespace'}`, soapText(envelope(SOAP11_ENVELOPE, wrong || null, op, form.header), form, ns))) },
    { weight: 2, arbitrary: fc.tuple(soapForm, fc.constantFrom(...WRONG_ACTIONS)).map(([form, action]) =>
      request(form, `SOAPAction ${action}`, valid(form), soapHeaders(op, form, SOAP_TYPE, action))) },
    { weight: 2, arbitrary: fc.tuple(soapForm, fc.constantFrom(...WRONG_SOAP_TYPES)).map(([form, type]) =>
      request(form, `Content-Type ${type}`, valid(form), soapHeaders(op, form, type))) },
    // A proper prefix of an XML document is never well-formed (its root is not closed).
    { weight: 2, arbitrary: fc.tuple(soapForm, fc.integer({ min: 1, max: 4096 })).map(([form, cut]) => {
      const text = valid(form);
      const at = Math.min(cut, text.length - 1);
      return request(form, `malformed XML: cut after ${at} characters`, text.slice(0, at));
    }) },
    { weight: 1, arbitrary: soapForm.map((form) => request({ ...form, header: 'entry' }, `an oversized body (${OVERSIZED_BODY_BYTES} bytes)`,
      soapText(envelope(SOAP11_ENVELOPE, ns.request, op, 'entry', 'x'.repeat(OVERSIZED_BODY_BYTES)), { ...form, header: 'entry' }, ns))) },
  );
}

// ---- per operation ----------------------------------------------------------------------------------

/** Every request generated for `op`: three valid to one invalid. */
export function requestArbitrary(op: Operation, ns: ServiceNamespaces): fc.Arbitrary<GeneratedRequest> {
  const [valid, invalid] = op.wire === 'json' ? [validJson(op), invalidJson(op)] : [validSoap(op, ns), invalidSoap(op, ns)];
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: invalid });
}

/** As fast-check's runner biases run `i` (more edge values early, fewer later). */
const biasFor = (i: number) => 2 + Math.floor(Math.log10(i + 1));

/** A seed's own stream per operation, so adding cases to one never changes another's. */
const operationSeed = (seed: number, op: Operation) => (seed ^ Math.imul(OPERATIONS.indexOf(op) + 1, 0x9e3779b9)) | 0;

/** The `count` requests of `op` from `seed`, in order, each with its shrink context. Lazy. */
export function* generateFor(op: Operation, ns: ServiceNamespaces, seed: number, count: number): Generator<fc.Value<GeneratedRequest>> {
  const arb = requestArbitrary(op, ns);
  const random = new fc.Random(xoroshiro128plus(operationSeed(seed, op)));
  for (let i = 0; i < count; i++) yield arb.generate(random, biasFor(i));
}
