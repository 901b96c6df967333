// Named faults: each breaks exactly one rule the harness checks, and names the checks that must
// fail because of it (more than one only where breaking the rule necessarily breaks them all).
// test/sensitivity-matrix.test.ts holds every fault to its declaration.
import { gunzipSync } from 'node:zlib';
import { ARRAYS, SOAP, SOAP11_ENVELOPE, SOAP12_ENVELOPE } from '../contract/namespaces.js';
import type { RouteForm } from '../contract/classify.js';
import { confirmEmail, impersonateLogout, login, SOAP_REQUEST_MEDIA_TYPE, type Operation } from '../contract/operations.js';
import { offeredCodings } from '../http/content-coding.js';
import { MAP_ENTRY, ordinalCompare, type Shape } from '../contract/types.js';
import type { JsonNode } from '../json/write.js';
import { el, isElement, text as textNode, type XmlElement } from '../xml/model.js';
import { exampleRecord } from '../contract/examples.js';
import { ProviderPaymentSettings, UserDetails } from '../contract/records.js';
import { toNode } from '../json/write.js';
import { num, renameMember, setMember, str, text, type Fill } from './edit-json.js';
import { children, editAt, editRecord, isNil, mapDeep, setChild, textOf, withChildren, withHeaderBlocks, withText } from './edit-xml.js';
import type { Profile, Served } from './profile.js';
import { serviceStackError } from './error-replies.js';
import { reply, type Reply } from './reply.js';
import type { Fault } from './variants.js';

const onLogin = (edit: (r: JsonNode) => JsonNode): Profile['editJson'][number] => (r, op) => (op === login ? edit(r) : r);
const onConfirm = (edit: (r: JsonNode) => JsonNode): Profile['editJson'][number] => (r, op) => (op === confirmEmail ? edit(r) : r);
const json = (name: string, description: string, breaks: string[], edit: (r: JsonNode) => JsonNode): Fault =>
  ({ name, description, breaks, editJson: onLogin(edit) });
const soap = (name: string, description: string, breaks: string[], edit: (record: XmlElement) => XmlElement): Fault =>
  ({ name, description, breaks, editSoap: (env) => editRecord(env, edit) });
const http = (name: string, description: string, breaks: string[], edit: (r: Reply, s: Served) => Reply | undefined): Fault =>
  ({ name, description, breaks, editReply: (r, s) => edit(r, s) ?? r });

/** The request reached `op` by `form` with `method`. */
const on = (s: Served, op: Operation, form: RouteForm, method = 'POST') => s.kind.operation === op && s.kind.route === form && s.method === method;
/** A POST on the custom route that nothing but negotiation answered as JSON. */
const plainJson = (s: Served, op: Operation) => on(s, op, 'custom') && s.kind.selector === 'none' && !s.jsonp;
/** A missing nested object of the user-details record, made whole from the contract's example values. */
const fillFromContract: Fill = (path) => {
  let shape: Shape = UserDetails;
  for (const name of path) {
    const t = shape.fields.find((f) => f.json === name)?.type;
    if (t?.kind !== 'object') return undefined;
    shape = t.shape;
  }
  return toNode(exampleRecord(shape));
};
const set = (path: string[], value: (old: JsonNode | undefined) => JsonNode | undefined) => (r: JsonNode) => setMember(r, path, value, fillFromContract);
const retext = (name: string, f: (t: string) => string) => (rec: XmlElement) => setChild(rec, name, (e) => withText(e ?? el(rec.ns, name), f(textOf(e))));

/** Wraps a record's envelope edit at the envelope level (for faults outside the record). */
const envelopeFault = (name: string, description: string, breaks: string[], edit: (env: XmlElement) => XmlElement): Fault =>
  ({ name, description, breaks, editSoap: edit });

/** The Action header block WCF's Message.CreateMessage(MessageVersion.Soap11, action, …) writes
 *  (fixtures/dotnet/golden/platform.json, probes.soapWithAction). */
const WCF_ADDRESSING_NONE = 'http://schemas.microsoft.com/ws/2005/05/addressing/none';
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** A SOAP answer's text with its declaration (and byte-order mark) replaced by one naming ISO-8859-1,
 *  its bytes still UTF-8. */
const declaredLatin1 = (body: string | Buffer): Buffer =>
  Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?>${body.toString().replace(/^\uFEFF?(?:<\?xml[^>]*\?>)?/, '')}`, 'utf8');

const bodyOf = (env: XmlElement) => children(env).find((c) => c.name === SOAP.body);

/** Every string of a JSON node, rewritten where `f` returns a new one. */
const mapStrings = (n: JsonNode, f: (s: string) => string | undefined): JsonNode => {
  switch (n.t) {
    case 'string': { const v = f(n.value); return v === undefined ? n : str(v); }
    case 'array': return { t: 'array', items: n.items.map((i) => mapStrings(i, f)) };
    case 'object': return { t: 'object', entries: n.entries.map(([k, v]) => [k, mapStrings(v, f)] as const) };
    default: return n;
  }
};
/** A JSON datetime before 1900, DateTime.MinValue (0001-01-01, .NET's "no date") aside. */
const BEFORE_1900 = /^(?!0001-01-01T00:00:00\.0000000$)(0\d{3}|1[0-8]\d{2})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{7}$/;

export const FAULTS: readonly Fault[] = [
  // Routes (4.1-4.3)
  http('login-route-missing', 'POST /supportstateuser answers 404 (every selector on it too)',
    ['ROUTE-LOGIN-POST', 'FORMAT-JSON-EXTENSION', 'FORMAT-JSON-QUERY', 'JSONP-CALLBACK'],
    (r, s) => (on(s, login, 'custom') ? reply(404, 'text/plain', 'Not Found') : undefined)),
  http('login-plain-media-type', 'POST /supportstateuser without a selector answers the record as text/plain',
    ['ROUTE-LOGIN-POST'], (r, s) => (plainJson(s, login) ? { ...r, headers: { ...r.headers, 'content-type': 'text/plain; charset=utf-8' } } : undefined)),
  http('login-reply-missing', 'POST /json/reply/SupportStateUserLoginRequest answers 404', ['ROUTE-LOGIN-REPLY'],
    (r, s) => (on(s, login, 'reply') ? reply(404, 'text/plain', 'Not Found') : undefined)),
  http('login-options-refused', 'OPTIONS /supportstateuser answers 405', ['ROUTE-LOGIN-OPTIONS'],
    (r, s) => (on(s, login, 'custom', 'OPTIONS') ? reply(405, 'text/plain', 'Method Not Allowed') : undefined)),
  http('confirm-plain-not-object', 'POST /user/confirmemail without a selector answers a JSON array holding the record',
    ['ROUTE-CONFIRM-POST'], (r, s) => (plainJson(s, confirmEmail) ? { ...r, body: `[${r.body}]` } : undefined)),
  http('confirm-reply-missing', 'POST /json/reply/ConfirmEmailRequest answers 404', ['ROUTE-CONFIRM-REPLY'],
    (r, s) => (on(s, confirmEmail, 'reply') ? reply(404, 'text/plain', 'Not Found') : undefined)),
  http('confirm-options-refused', 'OPTIONS /user/confirmemail answers 404', ['ROUTE-CONFIRM-OPTIONS'],
    (r, s) => (on(s, confirmEmail, 'custom', 'OPTIONS') ? reply(404, 'text/plain', 'Not Found') : undefined)),
  http('soap-text-xml', 'SOAP answers are text/xml (what ServiceStack sends) instead of the spec\'s application/xml',
    ['ROUTE-SOAP-POST', 'FORMAT-SOAP11-QUERY'], (r, s) => (on(s, impersonateLogout, 'soap11') ? { ...r, headers: { ...r.headers, 'content-type': SOAP_REQUEST_MEDIA_TYPE } } : undefined)),
  http('gzip-header-plain-body', 'answers to a request offering gzip say Content-Encoding: gzip but send the body uncompressed',
    ['CONTENT-CODING', 'ROUTE-LOGIN-POST', 'ROUTE-CONFIRM-POST', 'ROUTE-SOAP-POST'],
    (r, s) => {
      const accept = s.headers['accept-encoding'];
      if (!offeredCodings(Array.isArray(accept) ? accept.join(', ') : accept).has('gzip')) return undefined;
      // Under the gzip style the body is compressed already: send it as it was before, or the style
      // would undo the fault.
      const body = r.headers['content-encoding'] === 'gzip' && r.body.length ? gunzipSync(r.body) : r.body;
      return { ...r, headers: { ...r.headers, 'content-encoding': 'gzip' }, body };
    }),

  // Format selection (4)
  { name: 'json-extension-ignored', description: '.json is ignored: Accept: application/xml wins and the answer is XML', breaks: ['FORMAT-JSON-EXTENSION'], behaviour: { honourJsonExtension: false } },
  { name: 'format-query-ignored', description: '?format=json is ignored: Accept: application/xml wins and the answer is XML', breaks: ['FORMAT-JSON-QUERY'], behaviour: { honourFormatQuery: false } },
  { name: 'callback-ignored', description: '?callback is ignored: plain JSON comes back', breaks: ['JSONP-CALLBACK'], behaviour: { honourCallback: false } },
  { name: 'callback-renamed', description: 'the JSONP call is always named "callback"', breaks: ['JSONP-CALLBACK'], behaviour: { jsonp: (_name, body) => `callback(${body})` } },
  { name: 'soap-format-query-refused', description: 'POST /soap11?format=soap11 answers 404', breaks: ['FORMAT-SOAP11-QUERY'], behaviour: { honourSoapFormatQuery: false } },

  // SOAP envelope (4.2)
  envelopeFault('soap12-envelope', 'the Envelope (and its Body) are SOAP 1.2', ['SOAP-ENVELOPE-NS'],
    (env) => mapDeep(env, (e) => (e.ns === SOAP11_ENVELOPE ? { ...e, ns: SOAP12_ENVELOPE } : e))),
  envelopeFault('header-after-body', 'the Envelope holds Body, then a Header', ['SOAP-BODY'],
    (env) => ({ ...env, children: [...env.children.filter((c) => !(isElement(c) && c.name === SOAP.header)), el(env.ns, SOAP.header)] })),
  envelopeFault('two-elements-in-body', 'the Body holds UserDetailsResponse and a second element', ['SOAP-BODY-SINGLE'],
    (env) => setChild(env, SOAP.body, (b) => b && { ...b, children: [...b.children, el(children(b)[0]?.ns ?? null, 'ServerInfo', [textNode('reference')])] })),
  envelopeFault('record-wrong-namespace', 'UserDetailsResponse and its members are in another namespace', ['SOAP-RESPONSE-ELEMENT'],
    (env) => { const login = children(bodyOf(env)!)[0]!.ns; return mapDeep(env, (e) => (e.ns === login ? { ...e, ns: 'urn:example:not-the-login-namespace' } : e)); }),
  envelopeFault('soap-header-must-understand', 'a Header holds WCF\'s Action block with mustUnderstand="1", as Message.CreateMessage with an action writes',
    ['SOAP-HEADER-MUST-UNDERSTAND'],
    (env) => withHeaderBlocks(env, [el(WCF_ADDRESSING_NONE, 'Action', [textNode(impersonateLogout.soapAction)], [{ ns: SOAP11_ENVELOPE, name: SOAP.mustUnderstand, value: '1' }])])),
  http('soap-declared-latin1', 'SOAP answers declare encoding="ISO-8859-1" over bytes that are UTF-8, with no charset', ['SOAP-ENCODING'],
    (r, s) => (on(s, impersonateLogout, 'soap11') && r.status === 200 && !r.headers['content-encoding'] ? { ...r, body: declaredLatin1(r.body) } : undefined)),
  soap('members-unqualified', 'the record\'s members (and their members) are in no namespace', ['SOAP-MEMBER-NS', 'SOAP-MEMBERS-PRESENT'],
    (rec) => ({ ...rec, children: rec.children.map((c) => (isElement(c) ? mapDeep(c, (e) => (e.ns === rec.ns ? { ...e, ns: null } : e)) : c)) })),

  // SOAP record (2.1)
  soap('soap-boolean-missing', 'HadPinCode is left out', ['SOAP-MEMBERS-PRESENT'], (rec) => setChild(rec, 'HadPinCode', () => undefined)),
  soap('soap-nested-member-missing', 'EnrollmentInfo has no SystemCodeId', ['SOAP-MEMBERS-PRESENT'],
    (rec) => editAt(rec, ['EnrollmentInfo', 'SystemCodeId'], () => undefined)),
  soap('hx-user-type-code-misnamed', 'HXUserTypeCode is written HxUserTypeCode (so HXUserTypeCode is also missing)', ['SOAP-MEMBER-NAMES', 'SOAP-MEMBERS-PRESENT'],
    (rec) => setChild(rec, 'HXUserTypeCode', (e) => e && { ...e, name: 'HxUserTypeCode' })),
  soap('soap-string-misnamed', 'UserName is written Username', ['SOAP-MEMBER-NAMES'],
    (rec) => setChild(rec, 'UserName', (e) => ({ ...(e ?? el(rec.ns, 'UserName', [textNode('x')])), name: 'Username' }))),
  soap('case-insensitive-order', 'members sorted ignoring case (HadPinCode before HXUserTypeCode)', ['SOAP-ORDER'],
    (rec) => ({ ...rec, children: [...children(rec)].sort((a, b) => ordinalCompare(a.name.toLowerCase(), b.name.toLowerCase())) })),
  soap('two-members-swapped', 'IsAccountingActive and IsAffiliatedSsoUser, adjacent, are swapped', ['SOAP-ORDER'], (rec) => {
    const kids = children(rec);
    const i = kids.findIndex((k) => k.name === 'IsAccountingActive');
    const j = kids.findIndex((k) => k.name === 'IsAffiliatedSsoUser');
    const out = [...kids];
    [out[i], out[j]] = [kids[j]!, kids[i]!];
    return { ...rec, children: out };
  }),
  soap('nested-unsorted', 'EnrollmentInfo members in declaration order, not ordinal', ['SOAP-ORDER-NESTED'],
    (rec) => setChild(rec, 'EnrollmentInfo', (e) => {
      const kids = e && !isNil(e) ? children(e) : [];
      const pick = (n: string, v: string) => kids.find((k) => k.name === n) ?? el(rec.ns, n, [textNode(v)]);
      return el(rec.ns, 'EnrollmentInfo', [pick('SystemCodeId', '0'), pick('SystemCode', 'Unspecified'), pick('OwnerId', '0'), pick('SiteId', '00000000-0000-0000-0000-000000000000')]);
    })),
  soap('settings-missing', 'Settings is left out', ['SOAP-SETTINGS-NIL'], (rec) => setChild(rec, 'Settings', () => undefined)),
  soap('settings-empty', 'Settings is an empty element instead of nil', ['SOAP-SETTINGS-NIL'], (rec) => setChild(rec, 'Settings', () => el(rec.ns, 'Settings'))),
  soap('int-items-misnamed', 'AvailableYearsFor1099K items are <long>, not <int>', ['SOAP-ARRAY-ITEMS'],
    (rec) => setChild(rec, 'AvailableYearsFor1099K', (e) => {
      const items = e && !isNil(e) ? children(e) : [];
      const longs = (items.length ? items : [el(ARRAYS, 'int', [textNode('2024')])]).map((i) => ({ ...i, name: 'long' }));
      return withChildren(e ?? el(rec.ns, 'AvailableYearsFor1099K'), longs);
    })),
  soap('map-value-before-key', 'each payment-settings entry has Value before Key', ['SOAP-MAP-ENTRIES'],
    (rec) => setChild(rec, 'ProviderPaymentSettings', (e) => {
      const entries = e && !isNil(e) ? children(e) : [];
      const some = entries.length ? entries : [el(ARRAYS, `KeyValueOfstring${ProviderPaymentSettings.name}`, [el(ARRAYS, MAP_ENTRY.key, [textNode('1')]), el(ARRAYS, MAP_ENTRY.value)])];
      return withChildren(e ?? el(rec.ns, 'ProviderPaymentSettings'), some.map((x) => ({ ...x, children: [...children(x)].reverse() })));
    })),

  // SOAP types (2 Types, 2.1)
  soap('soap-datetime-fraction', 'CreatedDate keeps three fractional digits', ['SOAP-DATETIME'], retext('CreatedDate', (t) => `${t}.500`)),
  soap('soap-datetime-zone', 'CreatedDate has a Z suffix', ['SOAP-DATETIME'], retext('CreatedDate', (t) => `${t}Z`)),
  soap('soap-guid-undashed', 'SiteId is written without dashes', ['SOAP-GUID'], retext('SiteId', (t) => t.replace(/-/g, ''))),
  soap('soap-boolean-capitalised', 'HadPinCode is True/False, as .NET ToString writes it', ['SOAP-BOOLEAN'], retext('HadPinCode', (t) => (t === 'true' ? 'True' : 'False'))),
  soap('soap-integer-decimal', 'UserId is written 1048576.0', ['SOAP-INTEGER'], retext('UserId', (t) => `${t}.0`)),
  soap('soap-enum-numeric', 'OriginalUserTypeCode is written as its number', ['SOAP-ENUM'], retext('OriginalUserTypeCode', () => '2')),
  soap('soap-bad-day-name', 'a MealDays item is "Sun"', ['SOAP-DAY-NAMES'],
    (rec) => editAt(rec, ['NonCongregateSettings', 'MealDays'], (e) => {
      const items = e && !isNil(e) ? children(e) : [];
      const day = items[0] ?? el('http://schemas.datacontract.org/2004/07/System', 'DayOfWeek');
      return withChildren(e ?? el(rec.ns, 'MealDays'), [withText(day, 'Sun'), ...items.slice(1)]);
    })),
  soap('soap-string-markup', 'City holds an element instead of text', ['SOAP-STRING'],
    (rec) => setChild(rec, 'City', (e) => withChildren(e ?? el(rec.ns, 'City'), [el(rec.ns, 'Name', [textNode(textOf(e) || 'x')])]))),

  // JSON record (2.1, 2.3)
  json('json-value-member-missing', 'userId is left out', ['JSON-VALUE-MEMBERS'], set(['userId'], () => undefined)),
  json('json-nested-member-null', 'enrollmentInfo.ownerId is null', ['JSON-VALUE-MEMBERS'], set(['enrollmentInfo', 'ownerId'], () => ({ t: 'null' }))),
  json('json-pascal-case-name', 'userName is written UserName', ['JSON-MEMBER-NAMES'], (r) => renameMember(r, 'userName', 'UserName', str('x'))),
  json('json-settings-present', 'settings is written (as null)', ['JSON-SETTINGS-ABSENT'], set(['settings'], () => ({ t: 'null' }))),
  http('json-bom', 'JSON answers start with a UTF-8 byte-order mark, as new StreamWriter(stream, Encoding.UTF8) writes', ['JSON-NO-BOM'],
    (r, s) => (r.status === 200 && !s.jsonp && s.kind.operation?.wire === 'json' && s.kind.format === 'json'
      ? { ...r, body: Buffer.concat([UTF8_BOM, Buffer.from(r.body)]) } : undefined)),
  json('json-enum-camel-case', 'originalUserTypeCode is "center", as a camelCase enum converter writes Center', ['JSON-ENUM-CASE'],
    set(['originalUserTypeCode'], () => str('center'))),
  json('json-string-as-number', 'postalCode is the number 70801', ['JSON-STRING'], set(['postalCode'], () => num('70801'))),
  { name: 'confirm-name-not-string', description: 'the confirmation\'s lastName is a number', breaks: ['JSON-STRING'], editJson: onConfirm(set(['lastName'], () => num('42'))) },
  json('json-integer-as-string', 'userId is a string', ['JSON-INTEGER'], set(['userId'], (v) => str(text(v) ?? '1'))),
  json('json-integer-fraction', 'userId is written with a fraction (1048576.0)', ['JSON-INTEGER'], set(['userId'], (v) => num(`${text(v) ?? '1'}.0`))),
  json('json-boolean-as-string', 'hadPinCode is the string "true"', ['JSON-BOOLEAN'], set(['hadPinCode'], (v) => str(v?.t === 'boolean' ? String(v.value) : 'true'))),
  json('json-datetime-three-digits', 'createdDate has three fractional digits', ['JSON-DATETIME'], set(['createdDate'], (v) => str((text(v) ?? '2020-01-01T00:00:00.0000000').slice(0, 23)))),
  json('json-datetime-zone', 'createdDate has a Z suffix', ['JSON-DATETIME'], set(['createdDate'], (v) => str(`${text(v) ?? '2020-01-01T00:00:00.0000000'}Z`))),
  json('json-guid-dashed-at-depth', 'enrollmentInfo.siteId has dashes', ['JSON-GUID'],
    set(['enrollmentInfo', 'siteId'], (v) => str((text(v) ?? '0'.repeat(32)).replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-')))),
  json('json-enum-numeric', 'originalUserTypeCode is a number', ['JSON-ENUM'], set(['originalUserTypeCode'], () => num('2'))),
  json('json-bad-day-name', 'mealDays holds "Funday"', ['JSON-DAY-NAMES'],
    set(['nonCongregateSettings', 'mealDays'], (v) => ({ t: 'array', items: [...(v?.t === 'array' ? v.items : []), str('Funday')] }))),
  json('json-array-as-string', 'roles is a comma-separated string', ['JSON-ARRAY'], set(['roles'], () => str('Administrator,CenterDirector'))),
  json('json-object-as-array', 'enrollmentInfo is an array', ['JSON-OBJECT'], set(['enrollmentInfo'], (v) => ({ t: 'array', items: v ? [v] : [] }))),
  json('json-map-as-array', 'providerPaymentSettings is an array of {key, value} pairs', ['JSON-MAP'],
    set(['providerPaymentSettings'], (v) => ({ t: 'array', items: (v?.t === 'object' ? v.entries : []).map(([k, x]) => ({ t: 'object', entries: [['key', str(k)], ['value', x]] })) }))),
  // Faults only some inputs trigger: the probes never see them (the sensitivity matrix leaves them
  // out); test/generated.test.ts proves that generated requests find each and shrink it.
  { ...http('apostrophe-500', 'a user name with an apostrophe is answered 500 (a string pasted into SQL)', ['ROBUST-NO-5XX'],
    (r, s) => (s.kind.operation === login && typeof s.dto?.userName === 'string' && s.dto.userName.includes('\'')
      ? serviceStackError(500, 'SqlException', 'Incorrect syntax near the user name.') : undefined)), evidence: 'generated' },
  { ...json('datetime-before-1900', 'a datetime before 1900 (DateTime.MinValue aside) is written without its fraction', ['JSON-DATETIME'],
    (r) => mapStrings(r, (v) => (BEFORE_1900.test(v) ? v.slice(0, 19) : undefined))), evidence: 'generated' },
  { ...http('missing-token-crash', 'a ConfirmEmailRequest with verifyEmail but no recoveryToken drops the connection (a null dereference)', ['ROBUST-ANSWERED'],
    (r, s) => (s.kind.operation === confirmEmail && s.dto && (s.dto.recoveryToken ?? null) === null && typeof s.dto.verifyEmail === 'string' ? { ...r, drop: true } : undefined)), evidence: 'generated' },
];
