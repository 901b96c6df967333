// Every check against hand-made exchanges: the conforming set passes them all; for each check, at
// least one exchange breaking its rule makes it fail with a one-line message; legitimate
// variations of the wire form make nothing fail.
import { describe, expect, it } from 'vitest';
import { CATALOGUE, checkById } from '../lib/checks/catalogue.js';
import { ARRAYS, SOAP11_ENVELOPE, SOAP12_ENVELOPE, DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { confirmEmail, login } from '../lib/contract/operations.js';
import { X } from '../lib/engine/exchanges.js';
import { changed, contextOf, goodExchanges, type Change } from './helpers/exchanges.js';

const L = X.post(login);
const C = X.post(confirmEmail);
const S = X.soap;
const swap = (a: string, b: string) => (s: string) => s.replace(a + b, b + a);
const drop = (part: string) => (s: string) => s.replace(part, '');

type Case = [exchange: string, change: Change, why: string];

/** At least one violation per check id. */
const BREAKS: Record<string, Case[]> = {
  'ROUTE-LOGIN-POST': [
    [L, { status: 404 }, 'route missing'],
    [L, { headers: { 'content-type': 'text/html' } }, 'wrong media type'],
    [L, { body: '<html>oops</html>' }, 'not JSON'],
    [L, { body: '[1]' }, 'not an object'],
    [L, { error: 'connection closed' }, 'no answer'],
  ],
  'ROUTE-LOGIN-REPLY': [[X.reply(login), { status: 404 }, 'alternate missing']],
  'ROUTE-LOGIN-OPTIONS': [[X.options(login), { status: 405 }, 'OPTIONS refused']],
  'ROUTE-CONFIRM-POST': [[C, { headers: { 'content-type': 'text/plain' } }, 'wrong media type']],
  'ROUTE-CONFIRM-REPLY': [[X.reply(confirmEmail), { status: 500 }, 'server error']],
  'ROUTE-CONFIRM-OPTIONS': [[X.options(confirmEmail), { status: 404 }, 'OPTIONS missing']],
  'ROUTE-SOAP-POST': [
    [S, { headers: { 'content-type': 'text/xml; charset=utf-8' } }, 'text/xml instead of application/xml'],
    [S, { body: '<s:Envelope' }, 'malformed XML'],
    [S, { body: `<!DOCTYPE x [<!ENTITY a "a">]><x>&a;</x>` }, 'a DOCTYPE'],
    [S, { body: (b) => b.replace(/<UserDetailsResponse[\s\S]*<\/UserDetailsResponse>/, '<s:Fault><faultcode>s:Server</faultcode><faultstring>no</faultstring></s:Fault>') }, 'a Fault'],
  ],
  'OPTIONS-ALLOWS-POST': [[X.options(login), { headers: { 'access-control-allow-methods': 'GET' } }, 'POST not named']],
  'FORMAT-JSON-EXTENSION': [[X.jsonExtension(login), { headers: { 'content-type': 'application/xml' }, body: '<UserDetailsResponse/>' }, 'Accept wins over .json']],
  'FORMAT-JSON-QUERY': [[X.formatJson(confirmEmail), { status: 400 }, '?format=json refused']],
  'JSONP-CALLBACK': [
    [X.callback(login), { body: (b) => b.replace(/^conformanceCallback\((.*)\)$/s, '$1') }, 'callback ignored'],
    [X.callback(login), { body: (b) => b.replace('conformanceCallback(', 'callback(') }, 'callback renamed'],
    [X.callback(confirmEmail), { body: 'conformanceCallback({bad})' }, 'not JSON inside'],
  ],
  'JSONP-MEDIA-TYPE': [[X.callback(login), { headers: { 'content-type': 'application/json' } }, 'JSON media type']],
  'JSONP-SAFE-CALLBACK': [[X.unsafeCallback(login), { body: (b) => b.replace('alert_document.domain___', 'alert(document.domain)//') }, 'echoed verbatim']],
  'FORMAT-NEGOTIATION-OBSERVABLE': [[X.acceptXml(login), { headers: { 'content-type': 'application/json' }, body: '{}' }, 'Accept ignored']],
  'FORMAT-SOAP11-QUERY': [[X.soapFormatQuery, { status: 404 }, 'query refused']],
  'FORMAT-SOAP11-EXTENSION': [
    [X.soapExtension(login), { status: 404 }, 'suffix refused'],
    [X.soapExtension(login), { body: (b) => b.replaceAll(SOAP11_ENVELOPE, SOAP12_ENVELOPE) }, 'SOAP 1.2'],
  ],
  'SOAP-ENVELOPE-NS': [[S, { body: (b) => b.replaceAll(SOAP11_ENVELOPE, SOAP12_ENVELOPE) }, 'SOAP 1.2 envelope']],
  'SOAP-BODY': [
    [S, { body: (b) => b.replace('</s:Body></s:Envelope>', '</s:Body><s:Body/></s:Envelope>') }, 'two Bodies'],
    [S, { body: (b) => b.replace('</s:Body></s:Envelope>', '</s:Body><s:Header/></s:Envelope>') }, 'Header after Body'],
  ],
  'SOAP-BODY-SINGLE': [[S, { body: (b) => b.replace('</UserDetailsResponse></s:Body>', '</UserDetailsResponse><Extra/></s:Body>') }, 'two elements in Body']],
  'SOAP-RESPONSE-ELEMENT': [[S, { body: (b) => b.replace(`<UserDetailsResponse xmlns="${DEFAULT_NAMESPACES.login}"`, '<UserDetailsResponse xmlns="urn:wrong"') }, 'wrong namespace']],
  'SOAP-MEMBER-NS': [[S, { body: (b) => b.replace('<Address>', '<Address xmlns="">') }, 'an unqualified member']],
  'SOAP-NESTED-NS': [[S, { body: (b) => b.replace('<EnrollmentInfo><OwnerId>', '<EnrollmentInfo><OwnerId xmlns="urn:other">') }, 'nested member elsewhere']],
  'SOAP-ITEM-NS': [[S, { body: (b) => b.replace(`<AvailableYearsFor1099K xmlns:d4p1="${ARRAYS}"`, '<AvailableYearsFor1099K xmlns:d4p1="urn:not-arrays"') }, 'int items elsewhere']],
  'SOAP-MEMBERS-PRESENT': [
    [S, { body: drop('<HadPinCode>true</HadPinCode>') }, 'a boolean missing'],
    [S, { body: drop('<SystemCodeId>0</SystemCodeId>') }, 'a nested integer missing'],
  ],
  'SOAP-MEMBER-NAMES': [[S, { body: (b) => b.replaceAll('HXUserTypeCode>', 'HxUserTypeCode>') }, 'HxUserTypeCode']],
  'SOAP-ORDER': [
    [S, { body: swap('<HXUserTypeCode>7</HXUserTypeCode>', '<HadPinCode>true</HadPinCode>') }, 'case-insensitive order'],
    [S, { body: (b) => b.replace('<Address2 i:nil="true"/>', '<Address2 i:nil="true"/><Address2 i:nil="true"/>') }, 'a member twice'],
  ],
  'SOAP-ORDER-NESTED': [[S, { body: swap('<OwnerId>42</OwnerId>', '<SiteId>9b2e1f3c-4a5d-6e7f-8091-a2b3c4d5e6f7</SiteId>') }, 'EnrollmentInfo unsorted']],
  'SOAP-SETTINGS-NIL': [
    [S, { body: (b) => b.replace('<Settings i:nil="true"/>', '<Settings/>') }, 'empty, not nil'],
    [S, { body: drop('<Settings i:nil="true"/>') }, 'missing'],
    [S, { body: (b) => b.replace('<Settings i:nil="true"/>', '<Settings nil="true"/>') }, 'nil in no namespace'],
  ],
  'SOAP-ARRAY-ITEMS': [[S, { body: (b) => b.replaceAll('d4p1:int>', 'd4p1:integer>') }, 'wrong item name']],
  'SOAP-MAP-ENTRIES': [[S, { body: (b) => b.replace(/<d4p1:Key>1001<\/d4p1:Key>(<d4p1:Value>.*?<\/d4p1:Value>)/, '$1<d4p1:Key>1001</d4p1:Key>') }, 'Value before Key']],
  'SOAP-UNKNOWN-MEMBERS': [[S, { body: (b) => b.replace('</UserDetailsResponse>', '<Zzz>1</Zzz></UserDetailsResponse>') }, 'an extra member']],
  'SOAP-ENTRY-NAME': [[S, { body: (b) => b.replace(/KeyValueOfstringProviderPaymentSettings\w+/g, 'Entry') }, 'entries renamed']],
  'SOAP-DATETIME': [
    [S, { body: (b) => b.replace('<Expires>2026-12-21T19:41:00</Expires>', '<Expires>2026-12-21T19:41:00.123</Expires>') }, 'a fraction'],
    [S, { body: (b) => b.replace('<Expires>2026-12-21T19:41:00</Expires>', '<Expires>2026-12-21T19:41:00Z</Expires>') }, 'a zone'],
    [S, { body: (b) => b.replace('<Expires>2026-12-21T19:41:00</Expires>', '<Expires>2026-02-30T19:41:00</Expires>') }, 'no such day'],
  ],
  'SOAP-GUID': [[S, { body: (b) => b.replace('<SiteId>3f2504e0-4f89-11d3-9a0c-0305e82c3301</SiteId>', '<SiteId>3f2504e04f8911d39a0c0305e82c3301</SiteId>') }, 'undashed']],
  'SOAP-INTEGER': [
    [S, { body: (b) => b.replace('<ApiKeyStatus>1</ApiKeyStatus>', '<ApiKeyStatus>1.0</ApiKeyStatus>') }, '1.0'],
    [S, { body: (b) => b.replace('<ApiKeyStatus>1</ApiKeyStatus>', '<ApiKeyStatus>2147483648</ApiKeyStatus>') }, 'beyond int32'],
    [S, { body: (b) => b.replace('<d4p1:int>2024</d4p1:int>', '<d4p1:int>MMXXIV</d4p1:int>') }, 'an int item'],
    [S, { body: (b) => b.replace('<ApiKeyStatus>1</ApiKeyStatus>', '<ApiKeyStatus i:nil="true"/>') }, 'nil'],
  ],
  'SOAP-BOOLEAN': [[S, { body: (b) => b.replace('<HadPinCode>true</HadPinCode>', '<HadPinCode>True</HadPinCode>') }, 'True']],
  'SOAP-ENUM': [[S, { body: (b) => b.replace('<OriginalUserTypeCode>Center</OriginalUserTypeCode>', '<OriginalUserTypeCode></OriginalUserTypeCode>') }, 'empty']],
  'SOAP-DAY-NAMES': [[S, { body: (b) => b.replace('DayOfWeek>Sunday<', 'DayOfWeek>Sun<') }, 'Sun']],
  'SOAP-STRING': [[S, { body: (b) => b.replace('<City>Zürich</City>', '<City><b>Zürich</b></City>') }, 'an element inside']],
  'SOAP-ENUM-SEEN': [[S, { body: (b) => b.replace('<OriginalUserTypeCode>Center<', '<OriginalUserTypeCode>Provider<') }, 'an unseen value']],
  'JSON-VALUE-MEMBERS': [
    [L, { body: drop('"userId":1048576,') }, 'missing'],
    [L, { body: (b) => b.replace('"hadPinCode":true', '"hadPinCode":null') }, 'null'],
    [X.callback(login), { body: drop('"clientId":501,') }, 'nested, inside JSONP'],
  ],
  'JSON-MEMBER-NAMES': [[L, { body: (b) => b.replace('"userName":', '"UserName":') }, 'PascalCase']],
  'JSON-SETTINGS-ABSENT': [[L, { body: (b) => b.replace('{', '{"settings":null,') }, 'settings present']],
  'JSON-UNKNOWN-MEMBERS': [[L, { body: (b) => b.replace('{', '{"extra":1,') }, 'an extra member']],
  'JSON-DUPLICATE-KEYS': [[L, { body: (b) => b.replace('{', '{"userId":1,') }, 'a key twice']],
  'JSON-INTEGER-RANGE': [[L, { body: (b) => b.replace('"ownerId":2147483647,"userId"', '"ownerId":2147483648,"userId"') }, 'beyond int32']],
  'JSON-STRING': [
    [L, { body: (b) => b.replace('"city":"Zürich"', '"city":5') }, 'a number'],
    [X.callback(confirmEmail), { body: (b) => b.replace('"firstName":"Jane"', '"firstName":true') }, 'confirmation, inside JSONP'],
    [L, { body: (b) => b.replace('"roles":["Administrator"', '"roles":[7') }, 'an item'],
  ],
  'JSON-INTEGER': [
    [L, { body: (b) => b.replace('"userId":1048576', '"userId":"1048576"') }, 'a string'],
    [L, { body: (b) => b.replace('"userId":1048576', '"userId":1048576.0') }, '.0'],
    [L, { body: (b) => b.replace('"ownerId":42,"siteId"', '"ownerId":4.2e1,"siteId"') }, 'an exponent, nested'],
    [L, { body: (b) => b.replace('[2023,', '[2023.5,') }, 'an item'],
  ],
  'JSON-BOOLEAN': [[L, { body: (b) => b.replace('"hadPinCode":true', '"hadPinCode":"true"') }, 'a string']],
  'JSON-DATETIME': [
    [L, { body: (b) => b.replace('"2019-03-01T08:15:30.5000000"', '"2019-03-01T08:15:30.500"') }, 'three digits'],
    [L, { body: (b) => b.replace('"2019-03-01T08:15:30.5000000"', '"2019-03-01T08:15:30.5000000Z"') }, 'a zone'],
    [L, { body: (b) => b.replace('"2019-03-01T08:15:30.5000000"', '"2019-02-29T08:15:30.5000000"') }, 'no such day'],
  ],
  'JSON-GUID': [[L, { body: (b) => b.replace('9b2e1f3c4a5d6e7f8091a2b3c4d5e6f7', '9b2e1f3c-4a5d-6e7f-8091-a2b3c4d5e6f7') }, 'dashed, nested']],
  'JSON-ENUM': [[L, { body: (b) => b.replace('"originalUserTypeCode":"Center"', '"originalUserTypeCode":1') }, 'a number']],
  'JSON-DAY-NAMES': [[L, { body: (b) => b.replace('"mealDays":["Sunday"', '"mealDays":["Funday"') }, 'Funday']],
  'JSON-ARRAY': [[L, { body: (b) => b.replace(/"roles":\[[^\]]*\]/, '"roles":"Administrator"') }, 'a string']],
  'JSON-OBJECT': [[L, { body: (b) => b.replace(/"enrollmentInfo":\{[^}]*\}/, '"enrollmentInfo":[]') }, 'an array']],
  'JSON-MAP': [[L, { body: (b) => b.replace(/"providerPaymentSettings":\{.*\}\}$/, '"providerPaymentSettings":[{"key":"1001"}]}') }, 'an array of pairs']],
  'JSON-ENUM-SEEN': [[L, { body: (b) => b.replace('"originalUserTypeCode":"Center"', '"originalUserTypeCode":"Provider"') }, 'an unseen value']],
};

/** Legitimate variations: none may fail a check. */
const KEEPS: Case[] = [
  [X.callback(login), { body: (b) => ` \n${b};\n` }, 'JSONP with whitespace and a trailing semicolon'],
  [L, { headers: { 'content-type': 'application/json;charset=UTF-8' } }, 'a charset parameter, no space, upper case'],
  [L, { body: (b) => b.replace('3f2504e04f8911d39a0c0305e82c3301', '3F2504E04F8911D39A0C0305E82C3301') }, 'upper-case guid hex'],
  [L, { body: (b) => b.replace('"company":""', '"company":"","address2":null') }, 'a null string written as null'],
  [L, { body: (b) => JSON.stringify(JSON.parse(b), null, 2) }, 'indented JSON'],
  [L, { body: (b) => b.replace('"city":"Zürich"', '"city":"Z\\u00fcrich"') }, 'a \\u escape'],
  [S, { body: (b) => `\uFEFF<?xml version="1.0" encoding="utf-8"?>\n<!-- hello -->\n${b}` }, 'BOM, declaration, comment'],
  [S, { body: (b) => b.replaceAll('<s:', '<soap:').replaceAll('</s:', '</soap:').replace('xmlns:s=', 'xmlns:soap=') }, 'another envelope prefix'],
  [S, { body: (b) => b.replace('<s:Body>', '<s:Header/><s:Body>') }, 'an empty Header'],
  [S, { body: (b) => b.replace('<City>Zürich</City>', '<City><![CDATA[Zü]]>rich</City>').replace('<HadPinCode>true</HadPinCode>', '<HadPinCode>&#x74;rue</HadPinCode>') }, 'CDATA and a character reference'],
  [S, { body: (b) => b.replace('<HadPinCode>true</HadPinCode>', '<HadPinCode> 1 </HadPinCode>').replace('<ApiKeyStatus>1</ApiKeyStatus>', '<ApiKeyStatus>+01</ApiKeyStatus>') }, 'other xs:boolean and xs:int lexical forms'],
  [S, { body: (b) => b.replace('<Address2 i:nil="true"/>', '').replaceAll('i:nil', 'xsi:nil').replace('xmlns:i=', 'xmlns:xsi=') }, 'a null string omitted, xsi prefix'],
  [S, { body: (b) => b.replace('<SiteId>3f2504e0', '<SiteId>3F2504E0') }, 'upper-case guid hex'],
];

describe('the conforming exchanges', () => {
  it('pass every check', () => {
    const ctx = contextOf(goodExchanges());
    const failed = CATALOGUE.map((c) => [c.id, c.run(ctx)] as const).filter(([, o]) => o.status !== 'pass');
    expect(failed).toEqual([]);
  });
});

describe('each check fails on a violation of its rule', () => {
  it('every check in the catalogue has at least one violating case', () => {
    expect(CATALOGUE.map((c) => c.id).filter((id) => !BREAKS[id]?.length)).toEqual([]);
    expect(Object.keys(BREAKS).filter((id) => !checkById.has(id))).toEqual([]);
  });
  for (const [id, cases] of Object.entries(BREAKS)) {
    for (const [exchange, change, why] of cases) {
      it(`${id} fails: ${why}`, () => {
        const outcome = checkById.get(id)!.run(contextOf(changed(goodExchanges(), exchange, change)));
        expect(outcome.status).toBe('fail');
        if (outcome.status !== 'fail') return;
        expect(outcome.findings.length).toBeGreaterThan(0);
        for (const f of outcome.findings) expect(f.message).not.toMatch(/\n/);
      });
    }
  }
});

describe('legitimate variations fail nothing', () => {
  for (const [exchange, change, why] of KEEPS) {
    it(why, () => {
      const ctx = contextOf(changed(goodExchanges(), exchange, change));
      const failed = CATALOGUE.map((c) => [c.id, c.run(ctx)] as const).filter(([, o]) => o.status === 'fail');
      expect(failed).toEqual([]);
    });
  }
});
