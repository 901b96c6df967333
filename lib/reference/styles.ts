// Named styles: legitimate ways for a conforming implementation to write the same data. None may
// make a check fail (test/sensitivity-matrix.test.ts runs the whole catalogue against each).
import { SOAP, SOAP11_ENVELOPE } from '../contract/namespaces.js';
import { gzipSync } from 'node:zlib';
import { Confirmation, UserDetails } from '../contract/records.js';
import { offeredCodings } from '../http/content-coding.js';
import type { Shape } from '../contract/types.js';
import { isJsonObject, type JsonObject } from '../json/value.js';
import { el, text } from '../xml/model.js';
import { withHeaderBlocks } from './edit-xml.js';
import type { Variant } from './profile.js';

const shapeOf = (record: 'userDetails' | 'confirmation'): Shape => (record === 'userDetails' ? UserDetails : Confirmation);

/** Every array and map empty, at every depth (by the contract's types, not by guessing from values). */
function emptied(shape: Shape, data: JsonObject): JsonObject {
  const out: JsonObject = { ...data };
  for (const f of shape.fields) {
    const v = data[f.json];
    if (f.type.kind === 'array' || f.type.kind === 'map') out[f.json] = f.type.kind === 'array' ? [] : {};
    else if (f.type.kind === 'object' && isJsonObject(v)) out[f.json] = emptied(f.type.shape, v);
  }
  return out;
}

/** Every nullable member (string, array, object, map) null; value types keep their values. */
const nulled = (shape: Shape, data: JsonObject): JsonObject =>
  ({ ...data, ...Object.fromEntries(shape.fields.filter((f) => f.nullable).map((f) => [f.json, null])) });

export const STYLES: readonly Variant[] = [
  // SOAP: prefixes and namespace declarations
  { name: 'envelope-prefix-soap', description: 'the envelope prefix is soap:', xmlStyle: { prefixes: { envelope: 'soap' } } },
  { name: 'envelope-prefix-soap-env', description: 'the envelope prefix is SOAP-ENV:', xmlStyle: { prefixes: { envelope: 'SOAP-ENV' } } },
  { name: 'envelope-default-namespace', description: 'the envelope namespace is the default one; the record declares its own', xmlStyle: { prefixes: { envelope: '', login: '' } } },
  { name: 'prefix-everywhere', description: 'every element carries a prefix (a: for the record namespace), no default namespace', xmlStyle: { prefixes: { login: 'a', arrays: 'arr', system: 'sys' } } },
  { name: 'namespaces-on-root', description: 'every namespace is declared once, on the Envelope', xmlStyle: { hoist: true, prefixes: { login: 'u' } } },
  { name: 'xsi-prefix', description: 'xsi:nil under the prefix xsi instead of i', xmlStyle: { prefixes: { xsi: 'xsi' } } },
  // SOAP: document form
  { name: 'xml-declaration', description: 'an XML declaration before the envelope', xmlStyle: { declaration: true } },
  { name: 'utf8-bom', description: 'a UTF-8 byte-order mark and an XML declaration', xmlStyle: { bom: true, declaration: true } },
  { name: 'indented-xml', description: 'indentation and line breaks between elements', xmlStyle: { indent: 2, declaration: true } },
  { name: 'soap-header', description: 'an empty SOAP Header before the Body', behaviour: { soapHeader: true } },
  { name: 'soap-header-blocks', description: 'a Header with blocks no client must understand: one without mustUnderstand, one with mustUnderstand="0"',
    editSoap: (env) => withHeaderBlocks(env, [
      el('urn:example:trace', 'TraceId', [text('4bf92f3577b34da6')]),
      el('urn:example:trace', 'Node', [text('web-1')], [{ ns: SOAP11_ENVELOPE, name: SOAP.mustUnderstand, value: '0' }]),
    ]) },
  { name: 'cdata-text', description: 'character data written as CDATA sections', xmlStyle: { cdata: true } },
  { name: 'character-references', description: 'every non-ASCII character as a numeric character reference', xmlStyle: { charRefs: true } },
  { name: 'explicit-end-tags', description: 'empty elements as <a></a> instead of <a/>', xmlStyle: { selfClose: false } },
  { name: 'soap-boolean-digits', description: 'booleans as 1 and 0 (xs:boolean allows both forms)', soapBuild: { booleans: 'digits' } },
  { name: 'soap-guid-upper-case', description: 'guids with upper-case hex digits', soapBuild: { guidCase: 'upper' } },
  { name: 'soap-nulls-omitted', description: 'null members are left out of SOAP (EmitDefaultValue=false); Settings stays nil', soapBuild: { nullMembers: 'omit' } },
  // JSON
  { name: 'json-nulls-written', description: 'null members are written as null instead of omitted', jsonBuild: { nullMembers: 'null' } },
  { name: 'json-guid-upper-case', description: 'guids with upper-case hex digits', jsonBuild: { guidCase: 'upper' } },
  { name: 'json-keys-reversed', description: 'members in reverse declaration order', jsonStyle: { keyOrder: 'reversed' } },
  { name: 'json-keys-sorted', description: 'members sorted by name', jsonStyle: { keyOrder: 'sorted' } },
  { name: 'json-indented', description: 'indented JSON with line breaks', jsonStyle: { indent: 2 } },
  { name: 'json-ascii-escapes', description: 'every non-ASCII character as a \\u escape', jsonStyle: { asciiOnly: true } },
  // Data a conforming service may hold
  { name: 'empty-collections', description: 'every array and map empty, at every depth', editData: (d, r) => emptied(shapeOf(r), d) },
  { name: 'null-references', description: 'every string, array, object and map member null', editData: (d, r) => nulled(shapeOf(r), d) },
  // HTTP
  { name: 'media-type-parameters', description: 'JSON as application/json; charset=UTF-8, SOAP as application/xml; charset=utf-8', behaviour: { jsonMediaType: 'application/json; charset=UTF-8', soapMediaType: 'application/xml; charset=utf-8' } },
  { name: 'media-type-bare', description: 'JSON as application/json with no parameters', behaviour: { jsonMediaType: 'application/json' } },
  { name: 'jsonp-semicolon', description: 'JSONP written as name(json); with a trailing semicolon', behaviour: { jsonp: (name, body) => `${name}(${body});` } },
  { name: 'jsonp-comment-guard', description: 'JSONP written /**/name(json), the Rosetta-Flash guard', behaviour: { jsonp: (name, body) => `/**/${name}(${body})` } },
  { name: 'jsonp-typeof-guard', description: "JSONP written as Express does: /**/ typeof name === 'function' && name(json);", behaviour: { jsonp: (name, body) => `/**/ typeof ${name} === 'function' && ${name}(${body});` } },
  { name: 'jsonp-application-javascript', description: 'JSONP as application/javascript (ServiceStack v3)', behaviour: { jsonpMediaType: 'application/javascript' } },
  { name: 'gzip', description: 'answers gzip-compressed (Content-Encoding: gzip, Vary: Accept-Encoding) when the request offers gzip',
    editReply: (r, s) => {
      const accept = s.headers['accept-encoding'];
      if (!offeredCodings(Array.isArray(accept) ? accept.join(', ') : accept).has('gzip') || r.drop || !r.body.length || r.headers['content-encoding'] !== undefined) return r; // never coded twice
      return { ...r, headers: { ...r.headers, 'content-encoding': 'gzip', vary: 'Accept-Encoding' }, body: gzipSync(r.body) };
    } },
  { name: 'options-204-allow', description: 'OPTIONS answers 204 with an Allow header', behaviour: { optionsStatus: 204, optionsHeaders: { allow: 'POST, OPTIONS' } } },
];
