// Redaction masks secrets and nothing else (issue 26): a learned value is masked only where it stands
// whole, never inside another value, never inside a marker, never in the harness's own words; and
// secrets are found in every spelling a reader still reads as the value (issue 21 #6-#9).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { OPERATIONS } from '../lib/contract/operations.js';
import type { Field, Shape } from '../lib/contract/types.js';
import { CALLBACK_NAME, UNSAFE_CALLBACK } from '../lib/engine/probes.js';
import { runConformance } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { requestText, responseText } from '../lib/reporting/exchange-text.js';
import { MAX_SHOWN_TEXT, Redactor } from '../lib/reporting/redact.js';
import { buildReport } from '../lib/reporting/report.js';
import { published } from '../lib/reporting/boundary.js';
import { LEAN, runCli } from './helpers/cli.js';

const run = () => new Redactor({ showPersonalData: false, secrets: [] });
const API_KEY = 'K3y-Canary-7f3a91bd';

function exchange(body: string, extra: Partial<Exchange> = {}): Exchange {
  return {
    id: 'har.1', title: 'recorded login', origin: { source: 'har', vouched: false },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: '{}' },
    response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(body)),
    startedAt: new Date(0).toISOString(), durationMs: 1, ...extra,
  };
}

describe('a learned value is masked only where it stands whole', () => {
  it('a datetime holding a learned short value, or the words of a learned datetime, is shown exactly', () => {
    const r = run();
    r.scope().learn('{"address":"2026","firstName":"T00","birthDate":"1985-07-14T00:00:00.0000000","searchValues":"state=LA;center=*"}');
    const other = r.scope();
    const body = '{"currentClaimMonth":"2026-11-01T00:00:00.0000000","state":"LA","center":"x"}';
    expect(other.text(body)).toBe(body);
    expect(other.line('currentClaimMonth 2026-11-01T00:00:00.0000000 is not 00:00:00.0000000')).toBe('currentClaimMonth 2026-11-01T00:00:00.0000000 is not 00:00:00.0000000');
    // The learned values themselves, where they stand whole, are masked.
    expect(other.line('born 1985-07-14T00:00:00.0000000; at 2026; state LA center')).toBe('born «secret: 27 chars»; at «secret: 4 chars»; «secret: words»');
  });

  it('an echoed "string" masks no word of the harness and nests no marker', () => {
    const r = run();
    const scope = r.scope();
    const echoed = '{"userName":"string","email":"string","lastName":"string"}';
    const shown = scope.text(echoed);
    expect(shown).toBe('{"userName":"«personal: string, 6 chars»","email":"«personal: string, 6 chars»","lastName":"«personal: string, 6 chars»"}');
    // Through the boundary again (published() redacts every string of a report once more).
    expect(scope.line(shown)).toBe(shown);
    expect(r.line(shown)).toBe(shown);
    expect(scope.line('"string" (string): expected a string, an integer')).toBe('"string" (string): expected a string, an integer');
  });

  it('a grouped line keeps its expected text when the received value is a word of the harness', async () => {
    const record = JSON.parse(readFileSync(new URL('../fixtures/reference/user-details.json', import.meta.url), 'utf8')) as Record<string, unknown>;
    const echoing = Object.fromEntries(Object.entries(record).map(([k, v]) => [k, typeof v === 'string' ? 'string' : v]));
    const ex = exchange(JSON.stringify({ ...echoing, centerId: 'string' }));
    const result = await runConformance({ baseUrl: 'http://example.test', recorded: [ex], mode: 'traffic', checks: [checkById.get('JSON-INTEGER')!], namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: 1 << 20, probes: false });
    const report = buildReport(result, { redactor: run(), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: {} });
    const check = report.checks[0]!;
    expect(check.status).toBe('fail');
    expect(check.groups.map((g) => `${g.path}: ${g.message}`)).toContain('$.centerId: "…" (a string): expected an integer');
    const text = JSON.stringify(report);
    expect(text).not.toMatch(/«[^»]*«/); // no marker inside a marker
    expect(text).not.toContain('«secret');
  });

  it('the harness\'s own sample values and generated inputs are shown as sent, and where the answer echoes them', () => {
    const r = run();
    const probe = exchange('{"userName":"sample-userName"}', { request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: {}, body: '{"userName":"sample-userName","searchValues":"sample-searchValues"}' } });
    const scope = r.scope();
    scope.learnExchange(probe);
    expect(requestText(probe, scope)).toContain('{"userName":"sample-userName","searchValues":"sample-searchValues"}');
    expect(responseText(probe, scope)).toContain('{"userName":"sample-userName"}');
    const generated = exchange('{"userName":"\'"}', { origin: { source: 'generated', vouched: false, intent: 'valid' }, request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: {}, body: '{"userName":"\'","searchValues":"Zq 9 x"}' } });
    const g = r.scope();
    g.learnExchange(generated);
    r.learnFingerprints(generated);
    expect(requestText(generated, g)).toContain('{"userName":"\'","searchValues":"Zq 9 x"}');
    expect(responseText(generated, g)).toContain('{"userName":"\'"}');
    expect(r.line('searchValues Zq 9 x')).toBe('searchValues Zq 9 x');
    // A value the target sent of its own is masked as ever.
    const own = exchange('{"userName":"Real Person-41"}');
    const o = r.scope();
    o.learnExchange(own);
    expect(responseText(own, o)).toContain('{"userName":"«personal: string, 14 chars»"}');
  });

  it('a target\'s personal values spelled as a header name the harness writes (hidden by name), or echoing the probes\' callback names (the harness\'s values, shown as its sample values are): the harness\'s query and headers shown as sent', () => {
    const r = run();
    const answer = { firstName: CALLBACK_NAME, nickname: 'Authorization', lastName: 'document.domain', displayName: 'Proxy-Authorization' };
    r.learnFingerprints(exchange(JSON.stringify(answer)), answer);
    const other = r.scope();
    const own = `curl -X POST -H 'Authorization: Bearer x' -H 'Proxy-Authorization: x' '/supportstateuser?callback=${CALLBACK_NAME}' '/supportstateuser?callback=${encodeURIComponent(UNSAFE_CALLBACK)}' calls "callback", expected ${CALLBACK_NAME}; alert(document.domain)//`;
    expect(other.line(own)).toBe(own);
    expect(other.text(JSON.stringify(answer))).toBe(`{"firstName":"${CALLBACK_NAME}","nickname":"«personal: string, 13 chars»","lastName":"document.domain","displayName":"«personal: string, 19 chars»"}`);
  });
});

/** Fields of a kind whose values carry no secret and are never masked, by JSON and SOAP name. */
function plainFields(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (shape: Shape) => shape.fields.forEach((f: Field) => {
    if (!f.sensitivity && ['datetime', 'guid', 'integer', 'boolean'].includes(f.type.kind)) { out.set(f.json, f.type.kind); out.set(f.soap, f.type.kind); }
    if (f.type.kind === 'object') walk(f.type.shape);
    if (f.type.kind === 'array' && f.type.item.kind === 'object') walk(f.type.item.shape);
  });
  for (const op of OPERATIONS) { walk(op.request); walk(op.response); }
  return out;
}

describe('a run against the embedded reference', () => {
  it('shows every datetime, guid, integer and boolean of exchanges.json exactly, with no marker in any', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'redaction-exact-'));
    const r = await runCli([...LEAN, '--report-dir', dir, '--quiet']);
    expect(r.code).toBe(0);
    const exchanges = JSON.parse(readFileSync(join(dir, 'exchanges.json'), 'utf8')) as { id: string; request: string; response: string }[];
    const fields = plainFields();
    let seen = 0;
    const bad: string[] = [];
    for (const ex of exchanges) {
      for (const text of [ex.request, ex.response]) {
        const body = text.slice(text.indexOf('\n\n') + 2);
        // JSON members and SOAP elements of those fields, as written.
        for (const m of body.matchAll(/"(\w+)":("(?:[^"\\]|\\.)*"|[^,}\]]+)|<(?:[\w-]+:)?(\w+)>([^<]*)</g)) {
          const name = m[1] ?? m[3]!;
          if (!fields.has(name)) continue;
          seen++;
          if ((m[2] ?? m[4]!).includes('«')) bad.push(`${ex.id} ${name}=${m[2] ?? m[4]}`);
        }
      }
    }
    expect(seen).toBeGreaterThan(500);
    expect(bad).toEqual([]);
    expect(readFileSync(join(dir, 'exchanges.json'), 'utf8')).toContain('"currentClaimMonth\\":\\"2026-11-01T00:00:00.0000000\\"');
  }, 120_000);
});

describe('a secret is masked in every spelling a reader still reads as it (issue 21 #8)', () => {
  const TOKEN = 'Tok3n-Canary-91bd7f3a';
  const spellings = (v: string): Record<string, string> => {
    const half = Math.floor(v.length / 2);
    return {
      'split across two JSON strings': `{"a":"${v.slice(0, half)}","b":"${v.slice(half)}"}`,
      'split across two CDATA sections': `<r><x><![CDATA[${v.slice(0, half)}]]><![CDATA[${v.slice(half)}]]></x></r>`,
      'split by an XML comment': `<r><x>${v.slice(0, half)}<!-- c -->${v.slice(half)}</x></r>`,
      'in hex': `x=${Buffer.from(v).toString('hex')};`,
      'in upper-case hex': `x=${Buffer.from(v).toString('hex').toUpperCase()};`,
      reversed: `x=${[...v].reverse().join('')};`,
      'with U+200B between its characters': `x=${[...v].join('\u200b')};`,
      'with U+00AD between its characters': `x=${[...v].join('\u00ad')};`,
      'with \\u200b escapes between its characters': `{"x":"${[...v].join('\\u200b')}"}`,
    };
  };
  const leaks = (out: string, v: string): boolean => {
    const plain = out.replace(/[\u200b\u00ad]|\\u200b|<!--[^>]*-->|\]\]><!\[CDATA\[|","b":"/g, '');
    return [v, Buffer.from(v).toString('hex'), [...v].reverse().join('')].some((s) => plain.toLowerCase().includes(s.slice(0, 8).toLowerCase()) || plain.toLowerCase().includes(s.slice(-8).toLowerCase()));
  };

  it('the --header X-Api-Key value', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [API_KEY] });
    for (const [how, text] of Object.entries(spellings(API_KEY))) {
      const out = published({ body: r.text(text) }, r).body;
      expect(leaks(out, API_KEY), `${how}: ${out}`).toBe(false);
      expect(out, how).toContain('«secret header');
    }
  });

  it('a token learned from an answer, in its own exchange', () => {
    const r = run();
    const scope = r.scope();
    scope.learn(`{"hxToken":"${TOKEN}"}`);
    for (const [how, text] of Object.entries(spellings(TOKEN))) {
      const out = scope.text(text);
      expect(leaks(out, TOKEN), `${how}: ${out}`).toBe(false);
      expect(out, how).toContain('«credential');
    }
  });

  it('a token learned from another exchange (fingerprints only): hex, reversed, with invisible characters', () => {
    const r = run();
    r.learnFingerprints(exchange(`{"hxToken":"${TOKEN}"}`), { hxToken: TOKEN });
    const other = r.scope();
    for (const how of ['in hex', 'in upper-case hex', 'reversed', 'with U+200B between its characters', 'with U+00AD between its characters', 'with \\u200b escapes between its characters']) {
      const text = spellings(TOKEN)[how]!;
      const out = other.text(text);
      expect(leaks(out, TOKEN), `${how}: ${out}`).toBe(false);
      expect(out, how).toContain('«secret');
    }
  });

  it('keeps the JSON around a split value valid and the markup around it whole', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [API_KEY] });
    expect(JSON.parse(r.text(`{"a":"${API_KEY.slice(0, 9)}","b":"${API_KEY.slice(9)}","c":1}`))).toEqual({ a: '«secret header: string, 19 chars»', b: '«secret header: string, 19 chars»', c: 1 });
    expect(r.text(`<x>${API_KEY.slice(0, 9)}<!-- c -->${API_KEY.slice(9)}</x>`)).toBe('<x>«secret header: string, 19 chars»<!-- c -->«secret header: string, 19 chars»</x>');
  });

  it('leaves values that only look alike: other strings in a row, other hex', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [API_KEY] });
    const text = '{"a":"K3y-Canary","b":"-other","h":"4b33792d43616e617279"}';
    expect(r.text(text)).toBe(text);
  });
});

describe('credential elements under any prefix (issue 21 #7)', () => {
  it('recognises <é:ApiKey>, <ns-1.x:HxToken> and <日本:Password> as an XML reader reads their names', () => {
    for (const prefix of ['é', 'ns-1.x', '日本', 'p']) {
      const out = run().text(`<${prefix}:R><${prefix}:ApiKey>${API_KEY}</${prefix}:ApiKey><${prefix}:HxToken a="1">${API_KEY}x</${prefix}:HxToken><${prefix}:Password>pw-${API_KEY}</${prefix}:Password><${prefix}:N>1</${prefix}:N></${prefix}:R>`);
      expect(out, prefix).not.toContain('Canary');
      expect(out, prefix).toContain(`<${prefix}:ApiKey>«credential: string, 19 chars»</${prefix}:ApiKey>`);
      expect(out, prefix).toContain(`<${prefix}:N>1</${prefix}:N>`);
    }
  });
});

describe('redact first, then cut (issue 21 #6)', () => {
  const filler = (n: number) => 'lorem ipsum '.repeat(Math.ceil(n / 12)).slice(0, n);

  it('a secret straddling the display cut of a kept answer shows none of its characters', () => {
    for (const before of [24, 8, 1, 31]) {
      const r = new Redactor({ showPersonalData: false, secrets: [`Bearer ${API_KEY}`] });
      const body = Buffer.from(`${filler(MAX_SHOWN_TEXT - before)}${API_KEY} ${filler(4096)}`);
      // The engine keeps the first 256 KiB of an answer: the secret's start only.
      const kept = exchange('', { response: { ...recordedResponse(200, { 'content-type': 'text/plain' }, body), body: body.subarray(0, MAX_SHOWN_TEXT) } });
      const shown = responseText(kept, r.scope());
      expect(shown).not.toContain(API_KEY.slice(0, Math.min(before, 4)));
      expect(shown).toMatch(/bytes received; the rest not shown\)$/);
    }
  });

  it('a token learned in another exchange, cut at the end of what was kept, is left out', () => {
    const r = run();
    r.learnFingerprints(exchange(`{"hxToken":"${API_KEY}"}`), { hxToken: API_KEY });
    const body = Buffer.from(`${filler(MAX_SHOWN_TEXT - 10)}"${API_KEY}"`);
    const kept = exchange('', { response: { ...recordedResponse(200, {}, body), body: body.subarray(0, MAX_SHOWN_TEXT) } });
    expect(responseText(kept, r.scope())).not.toContain(API_KEY.slice(0, 4));
  });

  it('a request body is cut after redaction, never inside a marker', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [API_KEY] });
    const body = `${filler(MAX_SHOWN_TEXT - 5)}${API_KEY}${filler(100)}`;
    const shown = requestText(exchange('{}', { request: { method: 'POST', url: 'http://example.test/x', headers: {}, body } }), r);
    expect(shown).not.toContain(API_KEY.slice(0, 4));
    expect(shown).toContain('«secret header: string, 19 chars»');
    expect(shown).toMatch(/more characters not shown\)$/);
  });
});

describe('the learned set is bounded (issue 21 #9)', () => {
  it('stops at its bound in count and bytes, says so, and still masks members by name', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [], maxLearned: 4096 });
    const big = (i: number) => Array.from({ length: 2000 }, (_, k) => `w${i}x${k}yz`).join(' ');
    expect(r.boundWarning).toBeUndefined();
    const early = 'Early-Token-0123456789';
    r.learnFingerprints(exchange(`{"hxToken":"${early}"}`), { hxToken: early });
    for (let i = 0; i < 50; i++) r.learnFingerprints(exchange('{}'), { hxToken: big(i) });
    expect(r.fingerprintBytes).toBeLessThanOrEqual(8192 * 8);
    expect(r.boundWarning).toMatch(/^the set of learned secrets reached its bound \(4,096 fingerprints, 32 KiB\): values learned past it are masked by name and shape only/);
    // Learned before the bound: masked anywhere; past it: masked by name.
    expect(r.line(`seen ${early}`)).toBe('seen «secret: 22 chars»');
    const late = 'Late-Token-9876543210';
    r.learnFingerprints(exchange(`{"hxToken":"${late}"}`), { hxToken: late });
    expect(r.text(`{"hxToken":"${late}"}`)).toBe('{"hxToken":"«credential: string, 21 chars»"}');
  });

  it('a run report states the bound once it is reached', async () => {
    const result = await runConformance({ baseUrl: 'http://example.test', recorded: [exchange('{"n":1}')], mode: 'traffic', checks: [checkById.get('JSON-INTEGER')!], namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: 1 << 20, probes: false });
    const r = new Redactor({ showPersonalData: false, secrets: [], maxLearned: 16 });
    r.learnFingerprints(exchange('{}'), { hxToken: Array.from({ length: 40 }, (_, k) => `word${k}x`).join(' ') });
    const report = buildReport(result, { redactor: r, harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: {} });
    expect(report.warnings.some((w) => w.startsWith('the set of learned secrets reached its bound'))).toBe(true);
  });
});
