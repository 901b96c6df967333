// Canary test: distinctive secret values in every credential field, in personal-data fields, in
// the recovery token and in user-supplied headers. After a run, no canary may appear in any file
// under the report directory, nor on the console, even when checks fail on those very fields or
// the body is malformed. A positive control shows the scan does find what is there.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonNode } from '../lib/json/write.js';
import { setMember } from '../lib/reference/edit-json.js';
import { editRecord, setChild } from '../lib/reference/edit-xml.js';
import { referenceUserDetails } from '../lib/reference/data.js';
import { FAULTS, STYLES } from '../lib/reference/variants.js';
import { checkById } from '../lib/checks/catalogue.js';
import { el, text } from '../lib/xml/model.js';
import { runCli, WITHOUT_HTML } from './helpers/cli.js';
import { files, readable } from './helpers/outputs.js';
import { useReference } from './helpers/reference.js';

const CREDENTIALS = {
  apiKey: 'CANARY-APIKEY-7c1e', basicAuthHeader: 'Basic CANARY-BASIC/91ab', hxToken: 'CANARY-HXTOKEN-55d0', jToken: 'CANARY-JTOKEN-e3f2',
};
const PERSONAL = { email: 'canary.person.x9@example.org', userName: 'CANARY-USERNAME-x9', lastName: 'Canarylastname', address: 'CANARY-ADDRESS-77 Elm Street' };
/** A personal value of several words, none of them 8 characters long: no word alone is masked. */
const SHORT_WORDS = 'Flat 9 Baker Row';
/** The bearer token holds "/" and "+", so its URL encoding and JSON's "\/" differ from the plain spelling. */
const TOKEN = 'CANARY-AUTHZ/4d2e+Zq';
/** Learned only from places a simple scan misses: CDATA in SOAP, a number in JSON. */
const CDATA_SECRET = 'CANARY-HXCDATA-3e9f';
const NUMERIC_SECRET = '98765432123456';
const SECRETS = [...Object.values(CREDENTIALS), 'CANARY-RECOVERY-0b7a', TOKEN, 'CANARY-COOKIE-88aa', CDATA_SECRET, NUMERIC_SECRET];
const ALL = [...SECRETS, ...Object.values(PERSONAL), 'CANARY-LOGINUSER-x9', SHORT_WORDS];

const userDetails = { ...referenceUserDetails(), ...CREDENTIALS, ...PERSONAL, address2: SHORT_WORDS };
const conforming = useReference({ userDetails });
const failingOnSecrets = useReference({
  userDetails,
  variants: [{
    name: 'leaky', description: 'checks fail on the sensitive fields themselves',
    editJson: (r: JsonNode) => setMember(setMember(r, ['apiKey'], () => ({ t: 'object', entries: [['v', { t: 'string', value: CREDENTIALS.apiKey }]] })),
      ['email'], () => ({ t: 'array', items: [{ t: 'string', value: PERSONAL.email }] })),
    editSoap: (env) => editRecord(env, (rec) => setChild(setChild(rec, 'ApiKey', () => el(rec.ns, 'ApiKey', [el(rec.ns, 'v', [text(CREDENTIALS.apiKey)])])),
      'Email', () => el(rec.ns, 'Email', [{ text: PERSONAL.email, cdata: true }]))),
  }],
});
const malformed = useReference({
  userDetails,
  variants: [{ name: 'truncated', description: 'bodies cut off right after a secret', editReply: (r) => ({ ...r, body: r.body.slice(0, r.body.indexOf(CREDENTIALS.apiKey) + CREDENTIALS.apiKey.length + 5) }) }],
});

/** A careless target: echoes the bearer token and the cookie value back, in a header and as the
 *  JSONP callback name. */
const echoing = useReference({
  userDetails,
  variants: [{
    name: 'echo', description: 'echoes credentials it was sent',
    editReply: (r, s) => {
      const token = String(s.headers.authorization ?? '').replace(/^Bearer /, '');
      const cookie = String(s.headers.cookie ?? '').replace(/^session=/, '');
      const body = s.jsonp ? r.body.toString().replace(/^[^(]*/, token) : r.body;
      return { ...r, body, headers: { ...r.headers, 'x-echo': `token ${token}; cookie ${cookie}` } };
    },
  }],
});
/** A hostile target that gives secrets away in every spelling the first round of hostile testing found
 *  leaking: the bearer token as a JSON member name (so as a finding's path), URL-encoded in Location,
 *  base64 (alone and as the whole "Bearer …" value) and lower-cased, in headers and bodies; a
 *  credential that exists only as CDATA in SOAP, echoed in another element, a JSON member and a
 *  header; a numeric credential echoed in a header; and a learned credential re-spelled with JSON's
 *  \/ and \u escapes. */
const spelling = useReference({
  userDetails: { ...userDetails, apiKey: Number(NUMERIC_SECRET) as unknown as string, hxToken: null as unknown as string, company: CDATA_SECRET },
  variants: [{
    name: 'spelling', description: 'echoes secrets in every spelling',
    editSoap: (env) => editRecord(env, (rec) => setChild(rec, 'HxToken', () => el(rec.ns, 'HxToken', [{ text: CDATA_SECRET, cdata: true }]))),
    editReply: (r, s) => {
      const auth = String(s.headers.authorization ?? '');
      const token = auth.replace(/^Bearer /, '');
      const b64 = (v: string) => Buffer.from(v).toString('base64');
      const headers = {
        ...r.headers,
        location: `/next?t=${encodeURIComponent(token)}&u=${encodeURIComponent(token).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}`,
        'x-b64': `${b64(auth)} ${b64(token)}`,
        'x-lower': token.toLowerCase(),
        'x-number': NUMERIC_SECRET,
        'x-company': CDATA_SECRET,
      };
      const text = r.body.toString();
      if (!text.startsWith('{')) return { ...r, headers };
      const slashed = JSON.stringify(CREDENTIALS.basicAuthHeader + '/x').slice(1, -1).replace(/\//g, '\\/');
      const escaped = [...CREDENTIALS.jToken].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
      const extra = `${JSON.stringify(token)}:1,"echoB64":"${b64(auth)}","echoLower":"${token.toLowerCase()}","echoSlash":"${slashed}","echoEscaped":"${escaped}",`;
      return { ...r, headers, body: `{${extra}${text.slice(1)}` };
    },
  }],
});

/** The second round of hostile testing: JSON answers as an array of records, as objects one after
 *  another, or in single quotes with bare values; SOAP answers cut off inside a credential, or with
 *  an end tag hidden in CDATA or a comment before the real one; the bearer token in character
 *  references padded with zeros, URL-encoded twice, and in MIME base64 broken into groups; and a
 *  personal value of short words written into a guid, so a failing check quotes it. */
let reshapes = 0;
const reshaping = useReference({
  userDetails,
  variants: [{
    name: 'reshaping', description: 'reshapes its answers and re-spells the token',
    editReply: (r, s) => {
      const token = String(s.headers.authorization ?? '').replace(/^Bearer /, '');
      const mime = Buffer.from(`Bearer ${token}`).toString('base64').replace(/(.{8})/g, '$1 ');
      const refs = [...token].map((c) => `&#x00000000${c.charCodeAt(0).toString(16)};`).join('');
      const headers = { ...r.headers, 'x-mime': mime, location: `/next?t=${encodeURIComponent(encodeURIComponent(token))}` };
      let text = r.body.toString().replace(/"[0-9a-f]{32}"/, JSON.stringify(SHORT_WORDS)).replace(/(<SiteId>)[0-9a-f-]{32,36}/, `$1${SHORT_WORDS}`);
      const n = reshapes++ % 3;
      if (text.startsWith('{')) {
        text = n === 0 ? `[{"n":1},${text}]`
          : n === 1 ? `{"n":1}${text}`
            : text.replace(/"/g, "'").replace(new RegExp(`'apiKey':'${CREDENTIALS.apiKey}'`), `apiKey: ${CREDENTIALS.apiKey}`);
      } else if (text.includes('<ApiKey>')) {
        text = n === 0 ? text.slice(0, text.indexOf(CREDENTIALS.apiKey) + CREDENTIALS.apiKey.length)
          : text.replace(`<ApiKey>${CREDENTIALS.apiKey}`, n === 1 ? `<ApiKey><![CDATA[</ApiKey>]]>${CREDENTIALS.apiKey}` : `<ApiKey><!-- </ApiKey> -->${CREDENTIALS.apiKey}`)
            .replace('</Body>', `<Echo>${refs}</Echo></Body>`);
      }
      return { ...r, headers, body: text };
    },
  }],
});

/** Members sorted, so a personal datum (address) opens every body; and JSONP refused, so the check
 *  that reads the start of the body fails. */
const openingWithPersonal = useReference({
  userDetails,
  variants: [...STYLES.filter((v) => v.name === 'json-keys-sorted'), ...FAULTS.filter((f) => f.name === 'callback-ignored')],
});


/** An output, decoded in every way an echo may have been encoded, lower-cased, joined. */
function spellingsOf(text: string): string {
  const json = text.replace(/\\u([0-9a-fA-F]{4})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/\\\//g, '/');
  const xml = text.replace(/&#x([0-9a-fA-F]+);/g, (_m, h: string) => String.fromCodePoint(parseInt(h, 16))).replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)));
  const url = text.replace(/%([0-9a-fA-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  return [text, json, xml, url].join('\n').toLowerCase();
}

/** Base64 of the canary's first ten characters, as found inside any longer base64 text. */
function base64Of(canary: string): string[] {
  const head = Buffer.from(canary.slice(0, 10));
  return [0, 1, 2].map((k) => Buffer.concat([Buffer.alloc(k), head]).toString('base64').slice(Math.ceil((k * 4) / 3), Math.floor(((k + head.length) * 4) / 3)));
}

// Every output but report.html (WITHOUT_HTML, test/helpers/cli.ts); the runs that keep it (`html`) scan it too, decoded.

/** The text outputs alone: enough for the positive control, which shows the scan finds what is there. */
const TEXT_ONLY = ['--reports', 'summary,traceability,junit'];

async function leaks(baseUrl: string, extra: string[] = [], { html = false, presented = true } = {}) {
  // Not "canary-": the report directory's random name is in the outputs, and "canary-hXc…" once
  // matched the first ten characters of CANARY-HXCDATA, a hit that was no leak.
  const dir = mkdtempSync(join(tmpdir(), 'secrets-run-'));
  // A generous --timeout: the targets are served from this process, and slowness under load is not what is tested.
  const r = await runCli(['--base-url', baseUrl, '--report-dir', dir, '--timeout', '60000', ...(html ? [] : presented ? WITHOUT_HTML : TEXT_ONLY),
    '--header', `Authorization: Bearer ${TOKEN}`, '--header', 'Cookie: session=CANARY-COOKIE-88aa', ...extra],
  { CONFIRM_RECOVERY_TOKEN: 'CANARY-RECOVERY-0b7a', LOGIN_USER_NAME: 'CANARY-LOGINUSER-x9' });
  const written = files(dir).map((f) => f.slice(dir.length + 1));
  expect(written).toEqual(expect.arrayContaining(['traceability.md', 'summary.json', 'exchanges.json', 'replay.sh', 'junit.xml', ...(html ? ['report.html'] : [])]));
  if (presented) expect(written.filter((f) => f.startsWith('allure-results/')).length).toBeGreaterThan(50);
  const outputs = [['console', r.stdout + r.stderr], ...files(dir).map((f) => [f.slice(dir.length + 1), readable(f)])];
  // A canary's first ten characters count as a hit: a secret cut short is still a leak. Each output is
  // searched in every spelling a writer or target can produce (written here independently of the
  // harness's own decoding): as is, lower-cased, with JSON's \u and \/ escapes, XML references and URL
  // percent-encoding (either hex case) decoded, and the canary's base64 at each byte alignment.
  const hits = (canaries: readonly string[]) => outputs.flatMap(([name, content]) => {
    const decoded = spellingsOf(content!);
    return canaries.filter((c) => decoded.includes(c.slice(0, 10).toLowerCase()) || base64Of(c).some((b) => content!.includes(b)))
      .map((c) => `${c} in ${name}`);
  });
  return { code: r.code, hits, fileCount: outputs.length, stdout: r.stdout };
}

describe.concurrent('no secret or personal datum reaches any output', () => {
  it('a conforming target', async () => {
    const l = await leaks(conforming.url);
    expect(l.code).toBe(0);
    expect(l.fileCount).toBeGreaterThan(100);
    expect(l.hits(ALL)).toEqual([]);
  });

  it('a target whose checks fail on the sensitive fields themselves', async () => {
    const l = await leaks(failingOnSecrets.url);
    expect(l.code).toBe(1);
    expect(l.hits(ALL)).toEqual([]);
  });

  it('a target whose bodies are cut off right after a secret', async () => {
    const l = await leaks(malformed.url);
    expect(l.code).toBe(1);
    expect(l.hits(ALL)).toEqual([]);
  });

  it('a target that echoes the credentials it was sent', async () => {
    const l = await leaks(echoing.url);
    expect(l.code).toBe(1);
    expect(l.hits(ALL)).toEqual([]);
  });

  it('a target that gives secrets away in every spelling: key, CDATA, \\/, \\u, number, URL-encoded, base64, lower case', async () => {
    const l = await leaks(spelling.url, [], { html: true });
    expect(l.code).toBe(1);
    expect(l.hits(ALL)).toEqual([]);
    // The unknown member named after the token was judged, and its path is shown masked.
    expect(l.stdout).toMatch(/JSON-UNKNOWN-MEMBERS/);
  });

  it('a target that reshapes its answers: arrays, objects in a row, single quotes, bare values, cut or disguised XML, padded references, twice-encoded and MIME base64 echoes, a personal value of short words in a failing guid', async () => {
    const l = await leaks(reshaping.url);
    expect(l.code).toBe(1);
    expect(l.stdout).toMatch(/JSON-GUID/); // the check that quotes the short-worded value failed
    expect(l.hits(ALL)).toEqual([]);
  });

  it('a short configured value ("user") is masked as a word of its own, never inside the harness\'s own words', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'secrets-short-'));
    // summary.json and exchanges.json: the harness's words and the body that carried the value (the
    // presentation renders the same redacted report; the leak runs above scan it).
    const r = await runCli(['--base-url', conforming.url, '--report-dir', dir, '--timeout', '60000', '--reports', 'summary'], { LOGIN_USER_NAME: 'user' });
    expect(r.code).toBe(0);
    const summary = JSON.parse(readable(join(dir, 'summary.json'))) as { checks: { id: string; title: string; requirement: string }[]; exchanges: { id: string; title: string; url: string; curl?: string }[] };
    for (const c of summary.checks) expect(c, c.id).toMatchObject({ title: checkById.get(c.id)!.title, requirement: checkById.get(c.id)!.requirement });
    for (const ex of summary.exchanges) expect(`${ex.id} ${ex.title} ${ex.url}`).not.toMatch(/«/);
    expect(readable(join(dir, 'exchanges.json'))).toMatch(/\\?"userName\\?":\s*\\?"«personal: string, 4 chars»/);
  });

  it('a target whose every body opens with a personal datum, read by a failing check', async () => {
    const l = await leaks(openingWithPersonal.url);
    expect(l.code).toBe(1);
    expect(l.hits(ALL)).toEqual([]);
  });

  it('generated requests (--generate), their failures shrunk and replayed as curl, against a target that echoes credentials', async () => {
    const l = await leaks(echoing.url, ['--generate', '30', '--seed', '1']);
    expect(l.code).toBe(1);
    expect(l.stdout).toMatch(/smallest failing request/);
    expect(l.hits(ALL)).toEqual([]);
  });

  it('positive control: --show-personal-data reveals personal data, never credentials', async () => {
    const l = await leaks(conforming.url, ['--show-personal-data'], { presented: false });
    expect(l.hits(Object.values(PERSONAL)).length).toBeGreaterThan(0);
    expect(l.hits(SECRETS)).toEqual([]);
  });
});
