// The redactor on its own: every shape a secret can hide in.
import { describe, expect, it } from 'vitest';
import { Redactor } from '../lib/reporting/redact.js';

const r = () => new Redactor({ showPersonalData: false, secrets: ['header-secret-1'] });

describe('Redactor', () => {
  it('replaces credential and personal members in JSON, keeping the JSON valid and the rest exact', () => {
    const out = r().text('{"apiKey":"k-123456","email":"a@b.org","userId":7,"jToken":{"nested":["t-999999"]}}');
    expect(JSON.parse(out)).toEqual({ apiKey: '«credential: string, 8 chars»', email: '«personal: string, 7 chars»', userId: 7, jToken: '«credential: object»' });
  });

  it('replaces members of truncated JSON and inside JSONP', () => {
    expect(r().text('{"apiKey":"k-123456","userNa')).not.toContain('k-123456');
    expect(r().text('cb({"hxToken":"hx-abcdef"})')).toBe('cb({"hxToken":"«credential: string, 9 chars»"})');
  });

  it('replaces sensitive XML elements under any prefix, whatever they hold, and leaves the rest', () => {
    const out = r().text('<s:Envelope><s:Body><a:R><a:ApiKey>k-1</a:ApiKey><a:ApiKeyStatus>1</a:ApiKeyStatus><a:JToken><x>t-2</x></a:JToken><Email><![CDATA[e@x.org]]></Email></a:R></s:Body></s:Envelope>');
    expect(out).toBe('<s:Envelope><s:Body><a:R><a:ApiKey>«credential: string, 3 chars»</a:ApiKey><a:ApiKeyStatus>1</a:ApiKeyStatus><a:JToken>«credential: string, 3 chars»</a:JToken><Email>«personal: string, 7 chars»</Email></a:R></s:Body></s:Envelope>');
  });

  it('hides every learned secret wherever else it appears, escaped forms included', () => {
    const red = r();
    red.learn('{"apiKey":"quote\\"d-secret"}');
    expect(red.text('seen: quote"d-secret and quote\\"d-secret')).toBe('seen: «credential: string, 14 chars» and «credential: string, 14 chars»');
  });

  it('hides secret header values and user-supplied headers by name', () => {
    const red = r();
    red.secretHeader('X-Tenant');
    expect(red.header('Authorization', 'Bearer abc')).toBe('«secret header: string, 10 chars»');
    expect(red.header('x-tenant', 'acme')).toBe('«secret header: string, 4 chars»');
    expect(red.header('accept', 'application/json')).toBe('application/json');
    expect(red.text('echo header-secret-1')).toBe('echo «secret header: string, 15 chars»');
  });

  it('hides the parts of a secret header a target may echo alone: the token, the cookie value', () => {
    const red = new Redactor({ showPersonalData: false, secrets: ['Bearer tok-0123456789', 'session=cookie-abcdefgh; theme=dark'] });
    expect(red.text('token tok-0123456789 expired; session cookie-abcdefgh')).toBe('token «secret header: string, 14 chars» expired; session «secret header: string, 15 chars»');
    expect(red.header('x-debug', 'Bearer seen')).toBe('Bearer seen'); // the scheme word alone is no secret
  });

  it('shows personal data when asked, never credentials', () => {
    const red = new Redactor({ showPersonalData: true, secrets: [] });
    expect(JSON.parse(red.text('{"email":"a@b.org","apiKey":"k"}'))).toEqual({ email: 'a@b.org', apiKey: '«credential: string, 1 chars»' });
  });

  describe('second round: every shape and spelling a hostile target used', () => {
    const SECRET = 'CANARY-K3y/Zq+9xW';
    const withHeader = () => new Redactor({ showPersonalData: false, secrets: [`Bearer ${SECRET}`] });

    it('walks every root value: an array of records, objects in a row', () => {
      expect(r().text('[{"n":1},{"apiKey":"arr-secret-1","address":"12 Rue"}]')).toBe('[{"n":1},{"apiKey":"«credential: string, 12 chars»","address":"«personal: string, 6 chars»"}]');
      expect(r().text('{"n":1}{"apiKey":"row-secret-2"} {"hxToken":7}')).toBe('{"n":1}{"apiKey":"«credential: string, 12 chars»"} {"hxToken":"«credential: number»"}');
      expect(r().text('cb({"n":1}); cb({"apiKey":"cb-secret-22"});')).toBe('cb({"n":1}); cb({"apiKey":"«credential: string, 12 chars»"});');
    });

    it('hides values in single quotes or none, and a value cut off by the end of the text', () => {
      expect(r().text("{'userName':'Flat 9 Baker','apiKey': bare-secret-3, 'n': 1}")).toBe('{\'userName\':"«personal: string, 12 chars»",\'apiKey\': "«credential: string, 13 chars»", \'n\': 1}');
      expect(r().text('{"jToken":{"a":["cut-secret-4"')).toBe('{"jToken":"«credential: object»"');
    });

    it('finds the real end tag: not one in CDATA, a comment or an attribute; none at all masks to the end', () => {
      for (const trick of ['<![CDATA[</ApiKey>]]>', '<![CDATA[a>b</ApiKey>]]>', '<!-- </ApiKey> -->', '<!-- a>b </ApiKey> -->', '<x a="</ApiKey>"/>']) {
        const out = r().text(`<R><ApiKey>${trick}xml-secret-5</ApiKey><Next>shown</Next></R>`);
        expect(out, trick).not.toContain('xml-secret-5');
        expect(out, trick).toContain('<Next>shown</Next>');
      }
      expect(r().text('<R><ApiKey>xml-secret-6</ApiKe')).toBe('<R><ApiKey>«credential: string, 12 chars»');
    });

    it('finds a secret in references padded with zeros, URL-encoded twice, and in MIME base64 broken into groups', () => {
      const refs = [...SECRET].map((c) => `&#x000000000${c.charCodeAt(0).toString(16)};`).join('');
      const mime = Buffer.from(`Bearer ${SECRET}`).toString('base64').replace(/(.{8})/g, '$1 ');
      for (const spelled of [refs, encodeURIComponent(encodeURIComponent(SECRET)), mime, mime.replace(/ /g, '\r\n')]) {
        expect(withHeader().text(`seen: ${spelled}.`), spelled).toMatch(/^seen: «secret header: string, \d+ chars»\s*\.$/);
      }
    });

    it('finds a value of short words learned in one exchange in another, by any two of them in a row', () => {
      const run = r();
      run.scope().learn('{"address":"Flat 9 Baker Row"}');
      expect(run.scope().text('elsewhere: flat 9 Baker row; Baker alone')).toBe('elsewhere: «secret: words»; Baker alone');
    });

    it('matches a short secret as a word of its own, and never the interface\'s own words', () => {
      const red = new Redactor({ showPersonalData: false, secrets: ['abcd', 'user'] });
      expect(red.line('x abcd y; xabcdy')).toBe('x «secret header: string, 4 chars» y; xabcdy');
      expect(red.line('POST /user/confirmemail for user')).toBe('POST /user/confirmemail for user');
    });
  });
});
