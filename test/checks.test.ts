// Every check against hand-made exchanges: the conforming set passes them all; for each check, at
// least one exchange breaking its rule makes it fail with a one-line message; legitimate
// variations of the wire form make nothing fail.
import { describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { ANSWER_CHECKS } from './helpers/matrix.js';
import { ARRAYS, SOAP11_ENVELOPE, SOAP12_ENVELOPE, DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { confirmEmail, impersonateLogout, login } from '../lib/contract/operations.js';
import { PROBE } from '../lib/engine/probes.js';
import { changed, goodExchanges, judged, soapFault, type Change } from './helpers/exchanges.js';
import { shownMessage } from '../lib/reporting/display.js';
import { MAX_MESSAGE } from '../lib/reporting/report.js';

const L = PROBE.post(login);
/** Generated requests: valid, invalid (malformed JSON, answered 400), valid but refused (404), SOAP 1.2 (a 500 Fault). */
const G = 'gen.login.0';
const GI = 'gen.login.1';
const GV = 'gen.confirm.0';
const GS = 'gen.logout.0';
const C = PROBE.post(confirmEmail);
const S = PROBE.soap;
const swap = (a: string, b: string) => (s: string) => s.replace(a + b, b + a);
const drop = (part: string) => (s: string) => s.replace(part, '');
/** A SOAP 1.1 Fault whose faultcode is written as given: declarations added on the Envelope and on faultcode itself. */
const faultWith = (code: string, { onEnvelope = '', onFaultcode = '', element = 'faultcode' } = {}) =>
  `<s:Envelope xmlns:s="${SOAP11_ENVELOPE}"${onEnvelope}><s:Body><s:Fault><${element}${onFaultcode}>${code}</${element}><faultstring>refused</faultstring></s:Fault></s:Body></s:Envelope>`;

type Case = [exchange: string, change: Change, why: string];
/** A violation, and the path a finding of it must name. */
type Break = [exchange: string, change: Change, why: string, path: string];

/** At least one violation per check id. */
const BREAKS: Record<string, Break[]> = {
  'ROUTE-LOGIN-POST': [
    [L, { status: 404 }, 'route missing', 'status'],
    [L, { headers: { 'content-type': 'text/html' } }, 'wrong media type', 'headers.content-type'],
    [L, { body: '<html>oops</html>' }, 'not JSON', 'body'],
    [L, { body: '[1]' }, 'not an object', 'body'],
    [L, { error: 'connection closed' }, 'no answer', 'response'],
    // Two Content-Type field lines, as an exchange joins them: a singleton field (RFC 9110 8.3), and fetch reads the last.
    [L, { headers: { 'content-type': 'application/json; charset=utf-8, text/html' } }, 'a second Content-Type after one with a parameter', 'headers.content-type'],
    [L, { headers: { 'content-type': 'application/json; charset=iso-8859-1' } }, 'a charset other than UTF-8 (RFC 8259 8.1)', 'headers.content-type'],
  ],
  'ROUTE-LOGIN-REPLY': [[PROBE.reply(login), { status: 404 }, 'alternate missing', 'status']],
  'ROUTE-LOGIN-OPTIONS': [[PROBE.options(login), { status: 405 }, 'OPTIONS refused', 'status']],
  'ROUTE-CONFIRM-POST': [[C, { headers: { 'content-type': 'text/plain' } }, 'wrong media type', 'headers.content-type']],
  'ROUTE-CONFIRM-REPLY': [[PROBE.reply(confirmEmail), { status: 500 }, 'server error', 'status']],
  'ROUTE-CONFIRM-OPTIONS': [[PROBE.options(confirmEmail), { status: 404 }, 'OPTIONS missing', 'status']],
  'ROUTE-SOAP-POST': [
    [S, { headers: { 'content-type': 'text/xml; charset=utf-8' } }, 'text/xml instead of application/xml', 'headers.content-type'],
    [S, { body: '<s:Envelope' }, 'malformed XML', 'body'],
    [S, { body: `<!DOCTYPE x [<!ENTITY a "a">]><x>&a;</x>` }, 'a DOCTYPE', 'body'],
    [S, { body: (b) => b.replace('<s:Body>', '<s:Body><?pi data?>') }, 'a processing instruction (SOAP 1.1 section 3)', 'body'],
    [S, { headers: { 'content-type': 'application/xml; charset=utf-8, text/html' } }, 'a second Content-Type after one with a parameter', 'headers.content-type'],
    [S, { body: (b) => b.replace(/<UserDetailsResponse[\s\S]*<\/UserDetailsResponse>/, '<s:Fault><faultcode>s:Server</faultcode><faultstring>no</faultstring></s:Fault>') }, 'a Fault', '/Envelope/Body'],
    // XML 1.0 2.8: a 1.x document is read as 1.0, where &#x1; is no character; XML 1.1 would admit it.
    [S, { body: (b) => `<?xml version="1.1"?>${b.replace('<City>Zürich</City>', '<City>Z&#x1;rich</City>')}` }, 'a control-character reference behind a version="1.1" declaration', 'body'],
  ],
  'OPTIONS-ALLOWS-POST': [[PROBE.options(login), { headers: { 'access-control-allow-methods': 'GET' } }, 'POST not named', 'headers.access-control-allow-methods']],
  'FORMAT-JSON-EXTENSION': [[PROBE.jsonExtension(login), { headers: { 'content-type': 'application/xml' }, body: '<UserDetailsResponse/>' }, 'Accept wins over .json', 'headers.content-type']],
  'FORMAT-JSON-QUERY': [[PROBE.formatJson(confirmEmail), { status: 400 }, '?format=json refused', 'status']],
  'JSONP-CALLBACK': [
    [PROBE.callback(login), { body: (b) => b.replace(/^conformanceCallback\((.*)\)$/s, '$1') }, 'callback ignored', 'callback'],
    [PROBE.callback(login), { body: (b) => b.replace('conformanceCallback(', 'callback(') }, 'callback renamed', 'callback'],
    [PROBE.callback(confirmEmail), { body: 'conformanceCallback({bad})' }, 'not JSON inside', 'callback'],
    [PROBE.callback(login), { headers: { 'content-type': 'text/javascript; charset=windows-1252' } }, 'a charset a browser decodes the script by, not UTF-8', 'headers.content-type'],
    [PROBE.callback(login), { body: (b) => `${b};//x\nalert(1)` }, 'code after a trailing comment', 'callback'],
    [PROBE.callback(login), { body: (b) => `//x\ralert(1)\n${b}` }, 'code before the call, after a // comment that \\r ends', 'callback'],
  ],
  'JSONP-MEDIA-TYPE': [[PROBE.callback(login), { headers: { 'content-type': 'application/json' } }, 'JSON media type', 'headers.content-type']],
  'JSONP-SAFE-CALLBACK': [[PROBE.unsafeCallback(login), { body: (b) => b.replace('alert_document.domain___', 'alert(document.domain)//') }, 'echoed verbatim', 'callback']],
  'FORMAT-NEGOTIATION-OBSERVABLE': [[PROBE.acceptXml(login), { headers: { 'content-type': 'application/json' }, body: '{}' }, 'Accept ignored', 'headers.content-type']],
  'FORMAT-SOAP11-QUERY': [[PROBE.soapFormatQuery, { status: 404 }, 'query refused', 'status']],
  'FORMAT-SOAP11-EXTENSION': [
    [PROBE.soapExtension(login), { status: 404 }, 'suffix refused', 'status'],
    [PROBE.soapExtension(login), { body: (b) => b.replaceAll(SOAP11_ENVELOPE, SOAP12_ENVELOPE) }, 'SOAP 1.2', '/Envelope'],
  ],
  'CONTENT-CODING': [
    [L, { headers: { 'content-encoding': 'gzip' } }, 'gzip, though the request sent no Accept-Encoding', 'headers.content-encoding'],
    [PROBE.compressed(impersonateLogout), { headers: { 'content-encoding': 'zstd' } }, 'a coding the request did not offer', 'headers.content-encoding'],
  ],
  'SOAP-ENVELOPE-NS': [[S, { body: (b) => b.replaceAll(SOAP11_ENVELOPE, SOAP12_ENVELOPE) }, 'SOAP 1.2 envelope', '/Envelope']],
  'SOAP-ENCODING': [
    [S, { body: (b) => `<?xml version="1.0" encoding="ISO-8859-1"?>${b}` }, 'a declaration naming ISO-8859-1 over UTF-8 bytes, no charset', 'body'],
    [S, { headers: { 'content-type': 'application/xml; charset=utf-8' }, body: (b) => `<?xml version="1.0" encoding="ISO-8859-1"?>${b}` }, 'a declaration naming ISO-8859-1 under charset=utf-8', 'body'],
    [S, { headers: { 'content-type': 'application/xml; charset=iso-8859-1' }, body: (b) => `<?xml version="1.0" encoding="utf-8"?>${b}` }, 'charset=iso-8859-1 over a declaration naming UTF-8', 'headers.content-type'],
  ],
  'SOAP-BODY': [
    [S, { body: (b) => b.replace('</s:Body></s:Envelope>', '</s:Body><s:Body/></s:Envelope>') }, 'two Bodies', '/Envelope'],
    [S, { body: (b) => b.replace('</s:Body></s:Envelope>', '</s:Body><s:Header/></s:Envelope>') }, 'Header after Body', '/Envelope'],
  ],
  'SOAP-HEADER-MUST-UNDERSTAND': [
    [S, { body: (b) => b.replace('<s:Body>', '<s:Header><Action s:mustUnderstand="1" xmlns="http://schemas.microsoft.com/ws/2005/05/addressing/none">ImpersonateLogoutRequest</Action></s:Header><s:Body>') }, 'WCF\'s Action block with mustUnderstand="1"', '/Envelope/Header/Action'],
    [S, { body: (b) => b.replace('<s:Body>', '<s:Header><t:Trace xmlns:t="urn:example:trace" s:mustUnderstand=" true ">1</t:Trace></s:Header><s:Body>') }, 'mustUnderstand="true"', '/Envelope/Header/Trace'],
  ],
  'SOAP-BODY-SINGLE': [[S, { body: (b) => b.replace('</UserDetailsResponse></s:Body>', '</UserDetailsResponse><Extra/></s:Body>') }, 'two elements in Body', '/Envelope/Body']],
  'SOAP-RESPONSE-ELEMENT': [[S, { body: (b) => b.replace(`<UserDetailsResponse xmlns="${DEFAULT_NAMESPACES.login}"`, '<UserDetailsResponse xmlns="urn:wrong"') }, 'wrong namespace', '/Envelope/Body/UserDetailsResponse']],
  'SOAP-MEMBER-NS': [[S, { body: (b) => b.replace('<Address>', '<Address xmlns="">') }, 'an unqualified member', '/Envelope/Body/UserDetailsResponse/Address']],
  'SOAP-NESTED-NS': [[S, { body: (b) => b.replace('<EnrollmentInfo><OwnerId>', '<EnrollmentInfo><OwnerId xmlns="urn:other">') }, 'nested member elsewhere', '/Envelope/Body/UserDetailsResponse/EnrollmentInfo/OwnerId']],
  'SOAP-ITEM-NS': [[S, { body: (b) => b.replace(`<AvailableYearsFor1099K xmlns:d4p1="${ARRAYS}"`, '<AvailableYearsFor1099K xmlns:d4p1="urn:not-arrays"') }, 'int items elsewhere', '/Envelope/Body/UserDetailsResponse/AvailableYearsFor1099K/int[1]']],
  'SOAP-MEMBERS-PRESENT': [
    [S, { body: drop('<HadPinCode>true</HadPinCode>') }, 'a boolean missing', '/Envelope/Body/UserDetailsResponse/HadPinCode'],
    [S, { body: drop('<SystemCodeId>0</SystemCodeId>') }, 'a nested integer missing', '/Envelope/Body/UserDetailsResponse/EnrollmentInfo/SystemCodeId'],
    [S, { body: (b) => b.replace('<EnrollmentInfo><OwnerId>', '<EnrollmentInfo><OwnerId xmlns="urn:other">') }, 'a nested integer in another namespace (not bound)', '/Envelope/Body/UserDetailsResponse/EnrollmentInfo/OwnerId'],
  ],
  'SOAP-MEMBER-NAMES': [[S, { body: (b) => b.replaceAll('HXUserTypeCode>', 'HxUserTypeCode>') }, 'HxUserTypeCode', '/Envelope/Body/UserDetailsResponse/HxUserTypeCode']],
  'SOAP-ORDER': [
    [S, { body: swap('<HXUserTypeCode>7</HXUserTypeCode>', '<HadPinCode>true</HadPinCode>') }, 'case-insensitive order', '/Envelope/Body/UserDetailsResponse/HXUserTypeCode'],
    [S, { body: (b) => b.replace('<Address2 i:nil="true"/>', '<Address2 i:nil="true"/><Address2 i:nil="true"/>') }, 'a member twice', '/Envelope/Body/UserDetailsResponse/Address2'],
  ],
  'SOAP-ORDER-NESTED': [[S, { body: swap('<OwnerId>42</OwnerId>', '<SiteId>9b2e1f3c-4a5d-6e7f-8091-a2b3c4d5e6f7</SiteId>') }, 'EnrollmentInfo unsorted', '/Envelope/Body/UserDetailsResponse/EnrollmentInfo/OwnerId']],
  'SOAP-SETTINGS-NIL': [
    [S, { body: (b) => b.replace('<Settings i:nil="true"/>', '<Settings/>') }, 'empty, not nil', '/Envelope/Body/UserDetailsResponse/Settings'],
    [S, { body: drop('<Settings i:nil="true"/>') }, 'missing', '/Envelope/Body/UserDetailsResponse/Settings'],
    [S, { body: (b) => b.replace('<Settings i:nil="true"/>', '<Settings nil="true"/>') }, 'nil in no namespace', '/Envelope/Body/UserDetailsResponse/Settings'],
  ],
  'SOAP-ARRAY-ITEMS': [[S, { body: (b) => b.replaceAll('d4p1:int>', 'd4p1:integer>') }, 'wrong item name', '/Envelope/Body/UserDetailsResponse/AvailableYearsFor1099K/integer']],
  'SOAP-MAP-ENTRIES': [[S, { body: (b) => b.replace(/<d4p1:Key>1001<\/d4p1:Key>(<d4p1:Value>.*?<\/d4p1:Value>)/, '$1<d4p1:Key>1001</d4p1:Key>') }, 'Value before Key', '/Envelope/Body/UserDetailsResponse/ProviderPaymentSettings/KeyValueOfstringProviderPaymentSettings3EALVCDt[1]']],
  'SOAP-UNKNOWN-MEMBERS': [[S, { body: (b) => b.replace('</UserDetailsResponse>', '<Zzz>1</Zzz></UserDetailsResponse>') }, 'an extra member', '/Envelope/Body/UserDetailsResponse/Zzz']],
  'SOAP-ENTRY-NAME': [[S, { body: (b) => b.replace(/KeyValueOfstringProviderPaymentSettings\w+/g, 'Entry') }, 'entries renamed', '/Envelope/Body/UserDetailsResponse/ProviderPaymentSettings/Entry']],
  'SOAP-DATETIME': [
    [S, { body: (b) => b.replace('<Expires>2026-12-21T19:41:00</Expires>', '<Expires>2026-12-21T19:41:00.123</Expires>') }, 'a fraction', '/Envelope/Body/UserDetailsResponse/Expires'],
    [S, { body: (b) => b.replace('<Expires>2026-12-21T19:41:00</Expires>', '<Expires>2026-12-21T19:41:00Z</Expires>') }, 'a zone', '/Envelope/Body/UserDetailsResponse/Expires'],
    [S, { body: (b) => b.replace('<Expires>2026-12-21T19:41:00</Expires>', '<Expires>2026-02-30T19:41:00</Expires>') }, 'no such day', '/Envelope/Body/UserDetailsResponse/Expires'],
  ],
  'SOAP-GUID': [[S, { body: (b) => b.replace('<SiteId>3f2504e0-4f89-11d3-9a0c-0305e82c3301</SiteId>', '<SiteId>3f2504e04f8911d39a0c0305e82c3301</SiteId>') }, 'undashed', '/Envelope/Body/UserDetailsResponse/SiteId']],
  'SOAP-INTEGER': [
    [S, { body: (b) => b.replace('<ApiKeyStatus>1</ApiKeyStatus>', '<ApiKeyStatus>1.0</ApiKeyStatus>') }, '1.0', '/Envelope/Body/UserDetailsResponse/ApiKeyStatus'],
    [S, { body: (b) => b.replace('<ApiKeyStatus>1</ApiKeyStatus>', '<ApiKeyStatus>2147483648</ApiKeyStatus>') }, 'beyond int32', '/Envelope/Body/UserDetailsResponse/ApiKeyStatus'],
    [S, { body: (b) => b.replace('<d4p1:int>2024</d4p1:int>', '<d4p1:int>MMXXIV</d4p1:int>') }, 'an int item', '/Envelope/Body/UserDetailsResponse/AvailableYearsFor1099K/int[2]'],
    [S, { body: (b) => b.replace('<ApiKeyStatus>1</ApiKeyStatus>', '<ApiKeyStatus i:nil="true"/>') }, 'nil', '/Envelope/Body/UserDetailsResponse/ApiKeyStatus'],
  ],
  'SOAP-BOOLEAN': [[S, { body: (b) => b.replace('<HadPinCode>true</HadPinCode>', '<HadPinCode>True</HadPinCode>') }, 'True', '/Envelope/Body/UserDetailsResponse/HadPinCode']],
  'SOAP-ENUM': [[S, { body: (b) => b.replace('<OriginalUserTypeCode>Center</OriginalUserTypeCode>', '<OriginalUserTypeCode></OriginalUserTypeCode>') }, 'empty', '/Envelope/Body/UserDetailsResponse/OriginalUserTypeCode']],
  'SOAP-DAY-NAMES': [[S, { body: (b) => b.replace('DayOfWeek>Sunday<', 'DayOfWeek>Sun<') }, 'Sun', '/Envelope/Body/UserDetailsResponse/NonCongregateSettings/MealDays/DayOfWeek[1]']],
  'SOAP-STRING': [[S, { body: (b) => b.replace('<City>Zürich</City>', '<City><b>Zürich</b></City>') }, 'an element inside', '/Envelope/Body/UserDetailsResponse/City']],
  'SOAP-ENUM-SEEN': [[S, { body: (b) => b.replace('<OriginalUserTypeCode>Center<', '<OriginalUserTypeCode>Provider<') }, 'an unseen value', '/Envelope/Body/UserDetailsResponse/OriginalUserTypeCode']],
  'JSON-VALUE-MEMBERS': [
    [L, { body: drop('"userId":1048576,') }, 'missing', '$.userId'],
    [L, { body: (b) => b.replace('"hadPinCode":true', '"hadPinCode":null') }, 'null', '$.hadPinCode'],
    [PROBE.callback(login), { body: drop('"clientId":501,') }, 'nested, inside JSONP', '$.nonCongregateSettings.clientId'],
  ],
  'JSON-MEMBER-NAMES': [[L, { body: (b) => b.replace('"userName":', '"UserName":') }, 'PascalCase', '$.UserName']],
  'JSON-SETTINGS-ABSENT': [[L, { body: (b) => b.replace('{', '{"settings":null,') }, 'settings present', '$.settings']],
  'JSON-UNKNOWN-MEMBERS': [[L, { body: (b) => b.replace('{', '{"extra":1,') }, 'an extra member', '$.extra']],
  'JSON-DUPLICATE-KEYS': [[L, { body: (b) => b.replace('{', '{"userId":1,') }, 'a key twice', '$.userId']],
  'JSON-INTEGER-RANGE': [[L, { body: (b) => b.replace('"ownerId":2147483647,"userId"', '"ownerId":2147483648,"userId"') }, 'beyond int32', '$.ownerId']],
  'JSON-STRING': [
    [L, { body: (b) => b.replace('"city":"Zürich"', '"city":5') }, 'a number', '$.city'],
    [PROBE.callback(confirmEmail), { body: (b) => b.replace('"firstName":"Jane"', '"firstName":true') }, 'confirmation, inside JSONP', '$.firstName'],
    [L, { body: (b) => b.replace('"roles":["Administrator"', '"roles":[7') }, 'an item', '$.roles[0]'],
  ],
  'JSON-INTEGER': [
    [L, { body: (b) => b.replace('"userId":1048576', '"userId":"1048576"') }, 'a string', '$.userId'],
    [L, { body: (b) => b.replace('"userId":1048576', '"userId":1048576.0') }, '.0', '$.userId'],
    [L, { body: (b) => b.replace('"userId":1048576', '"userId":"1048576","userId":1048576') }, 'a string hidden behind a repeat that a first-wins reader never sees', '$.userId'],
    [L, { body: (b) => b.replace('"ownerId":42,"siteId"', '"ownerId":4.2e1,"siteId"') }, 'an exponent, nested', '$.enrollmentInfo.ownerId'],
    [L, { body: (b) => b.replace('[2023,', '[2023.5,') }, 'an item', '$.availableYearsFor1099K[0]'],
  ],
  'JSON-BOOLEAN': [[L, { body: (b) => b.replace('"hadPinCode":true', '"hadPinCode":"true"') }, 'a string', '$.hadPinCode']],
  'JSON-DATETIME': [
    [L, { body: (b) => b.replace('"2019-03-01T08:15:30.5000000"', '"2019-03-01T08:15:30.500"') }, 'three digits', '$.createdDate'],
    [L, { body: (b) => b.replace('"2019-03-01T08:15:30.5000000"', '"2019-03-01T08:15:30.5000000Z"') }, 'a zone', '$.createdDate'],
    [L, { body: (b) => b.replace('"2019-03-01T08:15:30.5000000"', '"2019-02-29T08:15:30.5000000"') }, 'no such day', '$.createdDate'],
  ],
  'JSON-GUID': [
    [L, { body: (b) => b.replace('9b2e1f3c4a5d6e7f8091a2b3c4d5e6f7', '9b2e1f3c-4a5d-6e7f-8091-a2b3c4d5e6f7') }, 'dashed, nested', '$.enrollmentInfo.siteId'],
    [L, { body: (b) => b.replace('"siteId":"9b2e1f3c4a5d6e7f8091a2b3c4d5e6f7"', '"siteId":5,"siteId":"9b2e1f3c4a5d6e7f8091a2b3c4d5e6f7"') }, 'a number before a repeat, nested', '$.enrollmentInfo.siteId'],
  ],
  'JSON-ENUM': [[L, { body: (b) => b.replace('"originalUserTypeCode":"Center"', '"originalUserTypeCode":1') }, 'a number', '$.originalUserTypeCode']],
  'JSON-DAY-NAMES': [[L, { body: (b) => b.replace('"mealDays":["Sunday"', '"mealDays":["Funday"') }, 'Funday', '$.nonCongregateSettings.mealDays[0]']],
  'JSON-ARRAY': [[L, { body: (b) => b.replace(/"roles":\[[^\]]*\]/, '"roles":"Administrator"') }, 'a string', '$.roles']],
  'JSON-OBJECT': [[L, { body: (b) => b.replace(/"enrollmentInfo":\{[^}]*\}/, '"enrollmentInfo":[]') }, 'an array', '$.enrollmentInfo']],
  'JSON-MAP': [[L, { body: (b) => b.replace(/"providerPaymentSettings":\{.*\}\}$/, '"providerPaymentSettings":[{"key":"1001"}]}') }, 'an array of pairs', '$.providerPaymentSettings']],
  'JSON-NO-BOM': [
    [L, { body: (b) => `\uFEFF${b}` }, 'a byte-order mark before the JSON', '$'],
    [PROBE.callback(confirmEmail), { body: (b) => b.replace('conformanceCallback(', 'conformanceCallback(\uFEFF') }, 'a byte-order mark inside the JSONP call', '$'],
  ],
  'JSON-ENUM-CASE': [[L, { body: (b) => b.replace('"originalUserTypeCode":"Center"', '"originalUserTypeCode":"center"') }, 'a known name in camelCase', '$.originalUserTypeCode']],
  'JSON-ENUM-SEEN': [[L, { body: (b) => b.replace('"originalUserTypeCode":"Center"', '"originalUserTypeCode":"Provider"') }, 'an unseen value', '$.originalUserTypeCode']],
  'ROBUST-ANSWERED': [
    [G, { error: 'connection closed before the response was complete' }, 'a dropped connection', 'response'],
    [GI, { error: 'no response headers within 10 s' }, 'no answer in time, to an invalid request', 'response'],
  ],
  'ROBUST-NO-5XX': [
    [GI, { status: 500 }, 'a server error', 'status'],
    [G, { status: 503, headers: { 'content-type': 'text/html' }, body: '<h1>down</h1>' }, 'an HTML 503', 'status'],
    [GS, { body: soapFault('Server') }, 'a SOAP Server fault', 'status'],
    // A faultcode is a QName: its prefix means what it is bound to where it is written (SOAP 1.1 4.4).
    [GS, { body: faultWith('x:Client', { onEnvelope: ' xmlns:x="urn:other"' }) }, 'a faultcode x:Client with x bound to another namespace', 'status'],
    [GS, { body: faultWith('x:Client', { onFaultcode: ' xmlns:x="urn:other"' }) }, 'a faultcode x:Client with x bound elsewhere on faultcode itself', 'status'],
    [GS, { body: faultWith('zz:Client') }, 'a faultcode zz:Client with zz undeclared', 'status'],
    [GS, { body: faultWith('Client') }, 'an unprefixed faultcode Client (no namespace)', 'status'],
    [GS, { body: faultWith('s:Client', { element: 's:faultcode' }) }, 'a faultcode element in the envelope namespace (WS-I BP R1001: unqualified)', 'status'],
    [GS, { headers: { 'content-type': 'text/html' }, body: '<h1>Internal Server Error</h1>' }, 'a 500 on /soap11 without a Fault', 'status'],
  ],
  'ROBUST-ERROR-JSON': [
    [GI, { headers: { 'content-type': 'text/html' }, body: '<h1>Bad Request</h1>' }, 'an HTML error page', 'headers.content-type'],
    [GI, { body: 'Bad Request' }, 'plain text labelled JSON', 'body'],
    [GV, { status: 401, headers: { 'content-type': undefined }, body: '' }, 'an empty 401', 'headers.content-type'],
  ],
  'ROBUST-ERROR-SHAPE': [
    [GI, { body: '{"error":"bad request"}' }, 'no responseStatus', '$.responseStatus'],
    [GI, { body: '{"responseStatus":{"message":"bad"}}' }, 'no errorCode', '$.responseStatus.errorCode'],
    [GI, { body: '["bad"]' }, 'not an object', '$'],
  ],
  'ROBUST-INVALID-REFUSED': [
    [GI, { status: 200, body: (b) => b.replace(/^.*$/s, goodExchanges().get(L)!.response!.body.toString('utf8')) }, 'malformed JSON answered with the record', 'status'],
    [GS, { status: 200, body: (b) => b.replace(/^.*$/s, goodExchanges().get(S)!.response!.body.toString('utf8')) }, 'SOAP 1.2 answered with the record', 'status'],
  ],
};

/** Legitimate variations: none may fail a check. */
const KEEPS: Case[] = [
  [PROBE.callback(login), { body: (b) => ` \n${b};\n` }, 'JSONP with whitespace and a trailing semicolon'],
  [PROBE.callback(login), { body: (b) => `${b};//x)` }, 'JSONP with a trailing line comment'],
  [PROBE.callback(login), { body: (b) => `/**/${b} /* x */` }, 'JSONP with a leading and a trailing block comment'],
  [L, { headers: { 'content-type': 'application/json;charset=UTF-8' } }, 'a charset parameter, no space, upper case'],
  [L, { headers: { 'content-type': 'Application/JSON ; Charset="utf-8"' } }, 'a quoted charset, the type in mixed case'],
  [L, { headers: { 'content-type': 'application/json; profile="a,b"' } }, 'a comma inside a quoted parameter value (not a second field)'],
  [PROBE.callback(login), { headers: { 'content-type': 'text/javascript; charset=utf-8' } }, 'a JSONP answer labelled UTF-8'],
  [L, { body: (b) => b.replace('3f2504e04f8911d39a0c0305e82c3301', '3F2504E04F8911D39A0C0305E82C3301') }, 'upper-case guid hex'],
  [L, { body: (b) => b.replace('"company":""', '"company":"","address2":null') }, 'a null string written as null'],
  [L, { body: (b) => JSON.stringify(JSON.parse(b), null, 2) }, 'indented JSON'],
  [L, { body: (b) => b.replace('"city":"Zürich"', '"city":"Z\\u00fcrich"') }, 'a \\u escape'],
  [S, { body: (b) => `\uFEFF<?xml version="1.0" encoding="utf-8"?>\n<!-- hello -->\n${b}` }, 'BOM, declaration, comment'],
  [S, { headers: { 'content-type': 'application/xml; charset="UTF-8"' }, body: (b) => `<?xml version='1.0' encoding='utf-8'?>${b}` }, 'a quoted charset and a declaration naming UTF-8 in other case'],
  [S, { body: (b) => `<?xml version="1.1" encoding="UTF-8"?>${b}` }, 'a version="1.1" declaration over a document XML 1.0 reads alike (XML 1.0 2.8)'],
  [S, { body: (b) => b.replaceAll('<s:', '<soap:').replaceAll('</s:', '</soap:').replace('xmlns:s=', 'xmlns:soap=') }, 'another envelope prefix'],
  [S, { body: (b) => b.replace('<s:Body>', '<s:Header/><s:Body>') }, 'an empty Header'],
  [S, { body: (b) => b.replace('<s:Body>', '<s:Header><t:Trace xmlns:t="urn:example:trace">1</t:Trace><t:Node xmlns:t="urn:example:trace" s:mustUnderstand="0">web-1</t:Node></s:Header><s:Body>') }, 'Header blocks without mustUnderstand, or with mustUnderstand="0"'],
  [PROBE.callback(login), { body: (b) => `\uFEFF${b}` }, 'a byte-order mark before a JSONP call (JavaScript\'s encoding signature, not JSON)'],
  [S, { body: (b) => b.replace('<City>Zürich</City>', '<City><![CDATA[Zü]]>rich</City>').replace('<HadPinCode>true</HadPinCode>', '<HadPinCode>&#x74;rue</HadPinCode>') }, 'CDATA and a character reference'],
  [S, { body: (b) => b.replace('<HadPinCode>true</HadPinCode>', '<HadPinCode> 1 </HadPinCode>').replace('<ApiKeyStatus>1</ApiKeyStatus>', '<ApiKeyStatus>+01</ApiKeyStatus>') }, 'other xs:boolean and xs:int lexical forms'],
  [S, { body: (b) => b.replace('<Address2 i:nil="true"/>', '').replaceAll('i:nil', 'xsi:nil').replace('xmlns:i=', 'xmlns:xsi=') }, 'a null string omitted, xsi prefix'],
  [S, { body: (b) => b.replace('<SiteId>3f2504e0', '<SiteId>3F2504E0') }, 'upper-case guid hex'],
  [GI, { status: 415 }, 'an invalid request refused with 415 and a ServiceStack error'],
  [GV, { status: 422 }, 'a valid generated request refused with 422: a client error, never judged against the success contract'],
  [GS, { body: soapFault('Client.Validation') }, 'a SOAP Client fault with a refinement'],
  [GS, { body: faultWith('soap:Client', { onEnvelope: ` xmlns:soap="${SOAP11_ENVELOPE}"` }) }, 'a Client faultcode under another prefix bound to the envelope namespace'],
  [GS, { body: faultWith(' e:Client ', { onFaultcode: ` xmlns:e="${SOAP11_ENVELOPE}"` }) }, 'a Client faultcode whose prefix faultcode itself declares, with whitespace around it'],
  [GS, { body: faultWith('x:Client', { onEnvelope: ' xmlns:x="urn:other"' }).replace('<s:Fault>', `<s:Fault xmlns:x="${SOAP11_ENVELOPE}">`) }, 'a Client faultcode whose prefix the Fault rebinds to the envelope namespace'],
  [GS, { status: 400, headers: { 'content-type': 'text/plain' }, body: 'bad' }, 'an invalid SOAP request refused with 400'],
];

describe('the conforming exchanges', () => {
  it('pass every check, and every check judges at least one of them', () => {
    // The request checks judge requests a client sent, none of these: test/requests.test.ts holds them.
    const results = judged(goodExchanges().values(), ANSWER_CHECKS);
    expect([...results.values()].filter((r) => r.status !== 'pass').map((r) => [r.check.id, r.message])).toEqual([]);
    expect([...results.values()].filter((r) => r.judged === 0).map((r) => r.check.id)).toEqual([]);
  });
});

describe('each check fails on a violation of its rule, naming where', () => {
  it('every check in the catalogue has at least one violating case', () => {
    expect(ANSWER_CHECKS.map((c) => c.id).filter((id) => !BREAKS[id]?.length)).toEqual([]);
    expect(Object.keys(BREAKS).filter((id) => !checkById.has(id))).toEqual([]);
  });
  for (const [id, cases] of Object.entries(BREAKS)) {
    for (const [exchange, change, why, path] of cases) {
      it(`${id} fails: ${why}, at ${path}`, () => {
        const result = judged(changed(goodExchanges(), exchange, change).values(), [checkById.get(id)!]).get(id)!;
        expect(result.status, result.message).toBe('fail');
        expect(result.examples.length).toBeGreaterThan(0);
        for (const f of result.examples) {
          expect(f.message).not.toMatch(/\n/);
          expect(f.exchange).toBe(exchange);
          expect(f.path, f.message).toBeTruthy(); // every finding says where it sits
        }
        expect(result.examples.map((f) => f.path)).toContain(path);
      });
    }
  }
});

describe('legitimate variations fail nothing', () => {
  for (const [exchange, change, why] of KEEPS) {
    it(why, () => {
      const results = judged(changed(goodExchanges(), exchange, change).values());
      expect([...results.values()].filter((r) => r.status === 'fail').map((r) => [r.check.id, r.message])).toEqual([]);
    });
  }
});

describe('ROBUST-NO-5XX reads a faultcode as a QName, through the declarations in scope', () => {
  const messages = (body: string) => judged(changed(goodExchanges(), GS, { body }).values(), [checkById.get('ROBUST-NO-5XX')!]).get('ROBUST-NO-5XX')!.examples.map((f) => f.message);
  it('x:Client with x bound to another namespace is named as the QName it is', () => {
    expect(messages(faultWith('x:Client', { onEnvelope: ' xmlns:x="urn:other"' })))
      .toEqual([`status 500 with a SOAP Fault whose faultcode is "x:Client", which names "Client" in "urn:other", not in ${SOAP11_ENVELOPE}`]);
  });
  it('an undeclared prefix, and a qualified faultcode element, are said so', () => {
    expect(messages(faultWith('zz:Client'))).toEqual(['status 500 with a SOAP Fault whose faultcode is "zz:Client", not a QName whose prefix is declared where it is written']);
    expect(messages(faultWith('s:Client', { element: 's:faultcode' }))).toEqual([`status 500 with a SOAP Fault whose faultcode element is in "${SOAP11_ENVELOPE}"; SOAP 1.1's is unqualified`]);
  });
  it('a Server fault under any prefix is the server\'s own failure', () => {
    expect(messages(faultWith('e:Server', { onFaultcode: ` xmlns:e="${SOAP11_ENVELOPE}"` }))).toEqual(['status 500 with a SOAP Fault whose faultcode is "e:Server": the server\'s own failure']);
  });
});

describe('a Fault is SOAP 1.1\'s Fault by its namespace, as every check reads it', () => {
  const fault = (prefix: string, ns: string) => (b: string) => b.replace(/<UserDetailsResponse[\s\S]*<\/UserDetailsResponse>/, `<${prefix}:Fault xmlns:${prefix}="${ns}"><faultcode>s:Client</faultcode><faultstring>refused</faultstring></${prefix}:Fault>`);
  const messages = (body: Change['body'], id: string, at: string = S) => judged(changed(goodExchanges(), at, { body }).values(), [checkById.get(id)!]).get(id)!.examples.map((f) => f.message);
  it('SOAP-RESPONSE-ELEMENT: x:Fault with x bound to another namespace is an element like any other, not a SOAP Fault', () => {
    expect(messages(fault('x', 'urn:other'), 'SOAP-RESPONSE-ELEMENT')).toEqual([`the Body holds "Fault" in "urn:other", expected {${DEFAULT_NAMESPACES.login}}UserDetailsResponse`]);
  });
  it('SOAP-RESPONSE-ELEMENT: a Fault under any prefix bound to the envelope namespace is a SOAP Fault', () => {
    expect(messages(fault('e', SOAP11_ENVELOPE), 'SOAP-RESPONSE-ELEMENT')).toEqual(['the Body holds a SOAP Fault: "refused"']);
  });
  it('ROBUST-NO-5XX agrees: a 500 whose Body holds x:Fault in another namespace carries no SOAP Fault', () => {
    const foreign = soapFault('Client').replace(/<(\/?)s:Fault>/g, '<$1x:Fault>').replace('<x:Fault>', '<x:Fault xmlns:x="urn:other">');
    expect(messages(foreign, 'ROBUST-NO-5XX', GS)).toEqual(['status 500: a server error']);
  });
});

describe('a long received value in a message: the report cuts the value, not the reason after it', () => {
  const ns = `urn:${'a'.repeat(16_000)}`;
  it('SOAP-MEMBER-NS on a member in a 16 004-character namespace states which namespace it should be in', () => {
    const result = judged(changed(goodExchanges(), S, { body: (b) => b.replace('<Address>', `<Address xmlns="${ns}">`) }).values(), [checkById.get('SOAP-MEMBER-NS')!]).get('SOAP-MEMBER-NS')!;
    const shown = result.examples.map((f) => shownMessage(f.message, MAX_MESSAGE));
    expect(shown).toEqual([expect.stringMatching(/^"Address" is in "urn:a+…" \(16,004 characters\), not "[^"]+"$/)]);
  });
});

describe('a long received element name in a SOAP message: quoted, and cut by the report before the reason', () => {
  // 1 000 characters: within the parser's name limit (1 024), past a message's 400.
  const n = `N${'a'.repeat(999)}`;
  const CUT = /"Na+…" \(1,000 characters\)/;
  const cases: Array<[id: string, change: Change, tail: RegExp]> = [
    ['SOAP-ENVELOPE-NS', { body: (b) => b.replace(/^<s:Envelope /, `<s:${n} `).replace(/<\/s:Envelope>$/, `</s:${n}>`) }, / in "http:\/\/schemas\.xmlsoap\.org\/soap\/envelope\/", expected \{[^}]+\}Envelope$/],
    ['SOAP-BODY', { body: (b) => b.replace('</s:Body></s:Envelope>', `</s:Body><s:${n}/></s:Envelope>`) }, /, expected \[Header,\] Body$/],
    ['SOAP-HEADER-MUST-UNDERSTAND', { body: (b) => b.replace('<s:Body>', `<s:Header><t:${n} xmlns:t="urn:t" s:mustUnderstand="1"/></s:Header><s:Body>`) }, / in "urn:t" has mustUnderstand="1"; no client of this interface understands it$/],
    ['SOAP-BODY-SINGLE', { body: (b) => b.replace('</UserDetailsResponse></s:Body>', `</UserDetailsResponse><${n}/></s:Body>`) }, /\), expected one$/],
    ['SOAP-RESPONSE-ELEMENT', { body: (b) => b.replace(/<UserDetailsResponse[\s\S]*<\/UserDetailsResponse>/, `<${n} xmlns="urn:x"/>`) }, / in "urn:x", expected \{[^}]+\}UserDetailsResponse$/],
    ['SOAP-MEMBER-NS', { body: (b) => b.replace('<Address>', `<${n} xmlns="urn:x"/><Address>`) }, / is in "urn:x", not "[^"]+"$/],
    ['SOAP-NESTED-NS', { body: (b) => b.replace('<EnrollmentInfo><OwnerId>', `<EnrollmentInfo><${n} xmlns="urn:x"/><OwnerId>`) }, / is in "urn:x"$/],
    ['SOAP-ITEM-NS', { body: (b) => b.replace('<d4p1:int>2024</d4p1:int>', `<${n}>2024</${n}>`) }, / is in "[^"]+", expected http:\/\/schemas\.microsoft\.com\/2003\/10\/Serialization\/Arrays$/],
    ['SOAP-ARRAY-ITEMS', { body: (b) => b.replace('<d4p1:int>2024</d4p1:int>', `<d4p1:${n}>2024</d4p1:${n}>`) }, /, expected int items$/],
    ['SOAP-INTEGER', { body: (b) => b.replace('<d4p1:int>2024</d4p1:int>', `<d4p1:${n}>MMXXIV</d4p1:${n}>`) }, /\[2\] is "MMXXIV": expected an xs:int \(digits only\)$/],
    ['SOAP-MAP-ENTRIES', { body: (b) => b.replace('<d4p1:Key>1001</d4p1:Key>', `<d4p1:${n}>1001</d4p1:${n}>`) }, /, expected Key, Value$/],
    ['SOAP-UNKNOWN-MEMBERS', { body: (b) => b.replace('</UserDetailsResponse>', `<${n}>1</${n}></UserDetailsResponse>`) }, / is not a member of \w+$/],
    ['SOAP-ENTRY-NAME', { body: (b) => b.replace(/KeyValueOfstringProviderPaymentSettings\w+/g, n) }, /; \.NET names it KeyValueOfstring\w+ and skips any other$/],
    ['ROUTE-SOAP-POST', { body: `<${n}/>` }, /^the body holds no Envelope\/Body\/UserDetailsResponse \(root element: "Na+…" \(1,000 characters\)\)$/],
  ];
  for (const [id, change, tail] of cases) {
    it(`${id}: the name is quoted and cut, the reason after it kept`, () => {
      const result = judged(changed(goodExchanges(), S, change).values(), [checkById.get(id)!]).get(id)!;
      expect(result.status, result.message).toBe('fail');
      const shown = result.examples.map((f) => shownMessage(f.message, MAX_MESSAGE));
      expect(shown.filter((m) => CUT.test(m) && tail.test(m)), shown.join('\n')).not.toEqual([]);
    });
  }
});
