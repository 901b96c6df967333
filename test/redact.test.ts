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

describe('Redactor against hostile answers (issue 17, second review)', () => {
  it('walks every top-level JSON value: an array answer, concatenated objects', () => {
    const red = r();
    const out = red.text('[{"n":1},{"userName":"Canary-Arr-Person","apiKey":"CANARY-ARRAY-KEY-1"}] {"jToken":"CANARY-CONCAT-2"}');
    for (const v of ['Canary-Arr-Person', 'CANARY-ARRAY-KEY-1', 'CANARY-CONCAT-2']) expect(out).not.toContain(v);
    expect(red.line('again CANARY-CONCAT-2')).not.toContain('CANARY-CONCAT-2');
  });

  it('masks and learns single-quoted and bare values after a sensitive name', () => {
    const red = r().scope();
    expect(red.text('{"userName":"x","apiKey":CANARY-UNQUOTED-KEY-9}')).not.toContain('CANARY-UNQUOTED');
    expect(red.text("{'apiKey':'apiKey-CANARY-SQ-1', hxToken: 'it''s'}")).not.toContain('CANARY-SQ-1');
    expect(red.line('echo CANARY-UNQUOTED-KEY-9 and apiKey-CANARY-SQ-1')).toBe('echo «credential: string, 21 chars» and «credential: string, 18 chars»');
  });

  it('hides an XML credential with no end tag to the end of the text, and learns it', () => {
    for (const cut of ['<a:ApiKey>CANARY-CUT-KEY-1', '<a:ApiKey>CANARY-CUT-KEY-1</a:ApiKey', '<r><ApiKey>CANARY-CUT-KEY-1']) {
      const red = r().scope();
      expect(red.text(cut)).not.toContain('CANARY-CUT');
      expect(red.line('CANARY-CUT-KEY-1')).not.toContain('CANARY-CUT');
    }
  });

  it('finds the end tag by tokenising: an end tag inside CDATA, a comment or an attribute does not end the element', () => {
    for (const trick of ['<![CDATA[</ApiKey>]]>', '<!-- </ApiKey> -->', '<x a="</ApiKey>"/>']) {
      const out = r().text(`<R><ApiKey>${trick}CANARY-SOAP-KEY-77</ApiKey><Next>1</Next></R>`);
      expect(out).not.toContain('CANARY-SOAP');
      expect(out).toContain('<Next>1</Next>');
    }
  });

  it('learns sensitive parameters of a query string and a form body', () => {
    const red = r().scope();
    expect(red.text('/confirm?recoveryToken=CANARY-QS-TOKEN%2B1&x=1')).not.toContain('CANARY-QS');
    expect(red.text('userName=Form%20Person%20Canary&apiKey=CANARY-FORM-KEY-3')).not.toMatch(/CANARY-FORM|Person/);
    expect(red.line('CANARY-QS-TOKEN+1 CANARY-FORM-KEY-3')).not.toContain('CANARY');
  });
});

describe('Redactor: short values, multi-word values, more spellings (issue 17, second review)', () => {
  it('matches a short configured value on word boundaries only, so harness text stays whole', () => {
    const red = new Redactor({ showPersonalData: false, secrets: [] });
    red.learn('{"userName":"user"}');
    expect(red.line('POST /supportstateuser answers 200; HXUserTypeCode')).toBe('POST /supportstateuser answers 200; HXUserTypeCode');
  });

  it('finds a multi-word value of short words in another exchange by its word sequence', () => {
    const run = new Redactor({ showPersonalData: false, secrets: [] });
    run.scope().learn('{"address":"Flat 9 Baker Street"}');
    const other = run.scope();
    expect(other.line('siteId "Flat 9  Baker\nStreet" is not a GUID')).not.toMatch(/Flat|Baker/);
  });

  it('decodes references with leading zeros, URL encoding of URL encoding, and MIME-style base64', () => {
    const token = 'CANARY-AUTHZ/4d2e+Zq';
    const red = new Redactor({ showPersonalData: false, secrets: [`Bearer ${token}`] });
    const refs = [...token].map((ch) => `&#x${ch.charCodeAt(0).toString(16).padStart(12, '0')};`).join('');
    expect(red.line(refs)).not.toMatch(/&#x/);
    expect(red.line(`t=${encodeURIComponent(encodeURIComponent(token))}`)).toBe('t=«secret header: string, 20 chars»');
    const b64 = Buffer.from(`Bearer ${token}`).toString('base64').replace(/(.{8})/g, '$1\n');
    expect(red.line(b64)).not.toContain(b64.slice(0, 12).replace('\n', ''));
    expect(red.line(b64).replace(/\s/g, '')).not.toContain(Buffer.from(token).toString('base64').slice(2, 14));
  });
});

describe('finding groups keep no received value (issue 17, second review)', () => {
  it('masks the received value wherever it stands in a group, quoted or not', async () => {
    const { CheckTally } = await import('../lib/engine/tally.js');
    const t = new CheckTally({ id: 'X' } as never);
    t.fold('e1', { source: 'har' } as never, [{ message: 'Flat9Baker is not a member of UserDetails', path: '$.Flat9Baker', actual: 'Flat9Baker' }, { message: '98765 is outside the 32-bit range', actual: '98765' }]);
    const text = JSON.stringify(t.findingGroups());
    expect(text).not.toMatch(/Flat9Baker|98765/);
    expect(text).toContain('32-bit');
  });
});
