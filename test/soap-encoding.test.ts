// What names a SOAP answer's encoding (byte-order mark, charset, XML declaration) must name UTF-8 or
// UTF-16, and the same one: a declaration of ISO-8859-1 over UTF-8 bytes read as Latin-1 and passed
// every check. The whole catalogue judges each answer here, so a fix in one check that another undoes
// would show.
import { describe, expect, it } from 'vitest';
import { PROBE } from '../lib/engine/probes.js';
import { recordedResponse } from '../lib/http/exchange.js';
import { goodExchanges, judged } from './helpers/exchanges.js';

const S = PROBE.soap;
const good = goodExchanges();
const text = good.get(S)!.response!.body.toString('utf8');

/** Every failing check, and its messages, when the SOAP probe is answered with these bytes. */
function failures(contentType: string, bytes: Buffer): Record<string, string[]> {
  const all = new Map(good);
  all.set(S, { ...good.get(S)!, response: recordedResponse(200, { 'content-type': contentType }, bytes) });
  return Object.fromEntries([...judged(all.values()).values()].filter((r) => r.status === 'fail').map((r) => [r.check.id, r.examples.map((f) => f.message)]));
}
const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();

describe('an answer whose labels misname its encoding fails SOAP-ENCODING, and nothing else', () => {
  it('a declaration of ISO-8859-1 over UTF-8 bytes, no charset', () => {
    expect(failures('application/xml', Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?>${text}`))).toEqual({
      'SOAP-ENCODING': ['the XML declaration names "ISO-8859-1", and the body is read by it; a SOAP message is UTF-8 or UTF-16'],
    });
  });
  it('a declaration of ISO-8859-1 under charset=utf-8', () => {
    expect(failures('application/xml; charset=utf-8', Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?>${text}`))).toEqual({
      'SOAP-ENCODING': ['the XML declaration names "ISO-8859-1", but the charset of Content-Type "application/xml; charset=utf-8" names "utf-8", by which the body is read'],
    });
  });
  it('charset=iso-8859-1 over a declaration of UTF-8', () => {
    expect(failures('application/xml; charset=iso-8859-1', Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>${text}`))).toEqual({
      'SOAP-ENCODING': [
        'the charset of Content-Type "application/xml; charset=iso-8859-1" names "iso-8859-1", and the body is read by it; a SOAP message is UTF-8 or UTF-16',
        'the XML declaration names "UTF-8", but the charset of Content-Type "application/xml; charset=iso-8859-1" names "iso-8859-1", by which the body is read',
      ],
    });
  });
  it('UTF-16 with its byte-order mark, declared UTF-8', () => {
    expect(failures('application/xml', Buffer.from(`\uFEFF<?xml version="1.0" encoding="UTF-8"?>${text}`, 'utf16le'))).toEqual({
      'SOAP-ENCODING': ['the XML declaration names "UTF-8", but the byte-order mark names "utf-16le", by which the body is read'],
    });
  });
});

describe('an answer in UTF-8 or UTF-16 whose labels agree fails nothing', () => {
  it('UTF-16LE with its byte-order mark, declared UTF-16, no charset', () => {
    expect(failures('application/xml', Buffer.from(`\uFEFF<?xml version="1.0" encoding="UTF-16"?>${text}`, 'utf16le'))).toEqual({});
  });
  it('UTF-16BE with its byte-order mark, charset=utf-16', () => {
    expect(failures('application/xml; charset=utf-16', utf16be(`\uFEFF${text}`))).toEqual({});
  });
  it('UTF-8 with its byte-order mark, charset=UTF-8 and a declaration of utf-8', () => {
    expect(failures('application/xml; charset=UTF-8', Buffer.from(`\uFEFF<?xml version="1.0" encoding="utf-8"?>${text}`))).toEqual({});
  });
});
