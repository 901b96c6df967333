// Learning a SOAP answer's secrets from the tree the checks already parsed (issue 24), not by walking
// its text again: the same values are learned, and masked wherever else they turn up.
import { describe, expect, it } from 'vitest';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';
import { ParsedXml } from '../lib/xml/model.js';
import { parseXml } from '../lib/xml/parse.js';

const TOKEN = 'hxToken-7XHMMv4Y39HNgRsomdqJmpvm';
const PASSWORD = 'Pw-split-into-pieces-42';
const ADDRESS = 'Flat 9 Baker Street';
const BODY = `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><R xmlns="urn:x">`
  + `<a:HxToken xmlns:a="urn:y">${TOKEN}</a:HxToken><Password>Pw-split-<![CDATA[into-pieces-42]]></Password>`
  + `<Address>${ADDRESS}</Address><Note>plain words here</Note></R></s:Body></s:Envelope>`;

function exchange(body: string): Exchange {
  return {
    id: 'har.1', title: 'soap login', origin: { source: 'har', vouched: false },
    request: { method: 'POST', url: 'http://example.test/soap', headers: { 'content-type': 'text/xml' }, body: '<x/>' },
    response: recordedResponse(200, { 'content-type': 'text/xml; charset=utf-8' }, Buffer.from(body)),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
}

const tree = (text: string): ParsedXml => {
  const doc = parseXml(text);
  if (!doc.ok) throw new Error(doc.error);
  return new ParsedXml(doc.root);
};

const redactor = () => new Redactor({ showPersonalData: false, secrets: [] });
const SHOWN = `echo ${TOKEN}; ${PASSWORD}; near ${ADDRESS}; plain words here`;

describe('a SOAP answer learned from its parsed tree', () => {
  it('masks in another exchange exactly what learning its text masks', () => {
    const byText = redactor();
    byText.learnFingerprints(exchange(BODY));
    const byTree = redactor();
    byTree.learnFingerprints(exchange(BODY), tree(BODY));
    const out = byTree.scope().line(SHOWN);
    expect(out).toBe(byText.scope().line(SHOWN));
    expect(out).not.toContain(TOKEN);
    expect(out).not.toContain(PASSWORD);
    expect(out).not.toMatch(/Baker Street/);
    expect(out).toContain('plain words here');
  });

  it('walks the tree, not the text: a value only the tree holds is learned', () => {
    const r = redactor();
    r.learnFingerprints(exchange('<x/>'), tree(BODY));
    expect(r.scope().line(`echo ${TOKEN}`)).toBe(`echo «secret: ${TOKEN.length} chars»`);
  });

  it('learns an attribute named as a credential', () => {
    const r = redactor();
    const body = `<R><Item ApiKey="${TOKEN}">x</Item></R>`;
    r.learnFingerprints(exchange(body), tree(body));
    expect(r.scope().line(`echo ${TOKEN}`)).toBe(`echo «secret: ${TOKEN.length} chars»`);
  });
});
