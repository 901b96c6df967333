// Canary test: distinctive secret values in every credential field, in personal-data fields, in
// the recovery token and in user-supplied headers. After a run, no canary may appear in any file
// under the report directory, nor on the console, even when checks fail on those very fields or
// the body is malformed. A positive control shows the scan does find what is there.
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonNode } from '../lib/json/node.js';
import { setMember } from '../lib/reference/edit-json.js';
import { editRecord, setChild } from '../lib/reference/edit-xml.js';
import { referenceUserDetails } from '../lib/reference/data.js';
import { FAULTS, STYLES } from '../lib/reference/variants.js';
import { el, text } from '../lib/xml/model.js';
import { runCli } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const CREDENTIALS = {
  apiKey: 'CANARY-APIKEY-7c1e', basicAuthHeader: 'Basic CANARY-BASIC-91ab', hxToken: 'CANARY-HXTOKEN-55d0', jToken: 'CANARY-JTOKEN-e3f2',
};
const PERSONAL = { email: 'canary.person.x9@example.org', userName: 'CANARY-USERNAME-x9', lastName: 'Canarylastname', address: 'CANARY-ADDRESS-77 Elm Street' };
const SECRETS = [...Object.values(CREDENTIALS), 'CANARY-RECOVERY-0b7a', 'CANARY-AUTHZ-4d2e', 'CANARY-COOKIE-88aa'];
const ALL = [...SECRETS, ...Object.values(PERSONAL), 'CANARY-LOGINUSER-x9'];

const userDetails = { ...referenceUserDetails(), ...CREDENTIALS, ...PERSONAL };
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
/** Members sorted, so a personal datum (address) opens every body; and JSONP refused, so the check
 *  that reads the start of the body fails. */
const openingWithPersonal = useReference({
  userDetails,
  variants: [...STYLES.filter((v) => v.name === 'json-keys-sorted'), ...FAULTS.filter((f) => f.name === 'callback-ignored')],
});

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));

/** A file's text as a reader could recover it: the single-file HTML report embeds its data files
 *  (attachments included) base64-encoded as d("name","…"), so those are decoded and scanned too. */
function readable(path: string): string {
  const text = readFileSync(path, 'utf8');
  if (!path.endsWith('.html')) return text;
  const embedded = [...text.matchAll(/d\("([^"]+)","([A-Za-z0-9+/=]*)"\)/g)];
  expect(embedded.length, 'embedded data files in the HTML report').toBeGreaterThan(50);
  return [text, ...embedded.map((m) => Buffer.from(m[2]!, 'base64').toString('utf8'))].join('\n');
}

async function leaks(baseUrl: string, extra: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'canary-'));
  const r = await runCli(['--base-url', baseUrl, '--report-dir', dir,
    '--header', 'Authorization: Bearer CANARY-AUTHZ-4d2e', '--header', 'Cookie: session=CANARY-COOKIE-88aa', ...extra],
  { CONFIRM_RECOVERY_TOKEN: 'CANARY-RECOVERY-0b7a', LOGIN_USER_NAME: 'CANARY-LOGINUSER-x9' });
  expect(files(dir).map((f) => f.slice(dir.length + 1))).toEqual(expect.arrayContaining(['report.html', 'traceability.md', 'summary.json', 'junit.xml']));
  const outputs = [['console', r.stdout + r.stderr], ...files(dir).map((f) => [f.slice(dir.length + 1), readable(f)])];
  // A canary's first ten characters count as a hit: a secret cut short is still a leak.
  const hits = (canaries: readonly string[]) => outputs.flatMap(([name, content]) => canaries.filter((c) => content!.includes(c.slice(0, 10))).map((c) => `${c} in ${name}`));
  return { code: r.code, hits, fileCount: outputs.length };
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

  it('a target whose every body opens with a personal datum, read by a failing check', async () => {
    const l = await leaks(openingWithPersonal.url);
    expect(l.code).toBe(1);
    expect(l.hits(ALL)).toEqual([]);
  });

  it('positive control: --show-personal-data reveals personal data, never credentials', async () => {
    const l = await leaks(conforming.url, ['--show-personal-data']);
    expect(l.hits(Object.values(PERSONAL)).length).toBeGreaterThan(0);
    expect(l.hits(SECRETS)).toEqual([]);
  });
});
