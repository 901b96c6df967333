// replay.sh asks for each secret header's value through a shell variable. It was named after the
// header alone, so a header named Path, Home, User, Shell, IFS, PWD or Replay-Max-Time became a
// variable the shell, the user's environment or the script itself sets: not asked for, and that
// variable's value was sent instead (or the script broke). And in a traffic run two failing requests
// with different Authorization values shared one variable: one replay sent the other's value. Now
// each is HEADER_…, one variable per distinct value over the whole script, naming the exchange it
// was recorded with; the same value, one variable.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { exchangeHeaders, recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';
import { buildReport } from '../lib/reporting/report.js';
import { replayScript } from '../lib/reporting/replay-script.js';
import { startRawTarget, type ParsedRequest, type RawTarget } from './helpers/raw-target.js';

let target: RawTarget;
beforeAll(async () => { target = await startRawTarget(() => 'HTTP/1.1 200 OK\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: 2\r\n\r\n{}'); });
afterAll(async () => { await target.close(); });

/** What the user's shell has set before they run the script. */
const USER_ENV = { HOME: '/home/someone', USER: 'someone', SHELL: '/bin/sh' };

const sh = (script: string, env: Record<string, string>) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '', ...USER_ENV, ...env }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

/** A request a client sent through the proxy, as it recorded it, answered 200 `{}`. */
function proxied(n: number, method: string, path: string, fields: readonly (readonly [string, string])[], body?: string): Exchange {
  const all: [string, string][] = [['Host', new URL(target.url).host], ...fields.map(([k, v]): [string, string] => [k, v]), ...(body !== undefined ? [['Content-Length', String(body.length)] as [string, string]] : [])];
  return {
    id: `proxy.${n}`, title: `${method} ${path}`, origin: { source: 'proxy', vouched: false },
    request: { method, url: `${target.url}${path}`, headers: exchangeHeaders(all), rawHeaders: all.flat(), ...(body !== undefined ? { body } : {}) },
    response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from('{}')),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
}

/** replay.sh of a traffic run that judged `recorded`, `secret` naming the headers the user marked secret. */
async function scriptOf(recorded: Exchange[], secret: readonly string[] = [], showPersonalData = false): Promise<string> {
  const run = await runConformance({ baseUrl: target.url, recorded, mode: 'traffic', checks: CATALOGUE, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 5000, maxBodyBytes: 1 << 20, probes: false });
  const redactor = new Redactor({ showPersonalData, secrets: [] });
  for (const name of secret) redactor.secretHeader(name);
  const report = buildReport(run, { redactor, harness: { name: 'h', version: '0' }, targetDescription: 'proxied', configuration: {} });
  expect(report.checks.filter((c) => c.status === 'fail').length).toBeGreaterThan(0);
  const script = join(mkdtempSync(join(tmpdir(), 'replay-secret-variables-')), 'replay.sh');
  writeFileSync(script, replayScript(report));
  return script;
}

/** What replay.sh asks for: [variable, what to set it to]. */
const askedIn = (script: string) => [...readFileSync(script, 'utf8').matchAll(/^: "\$\{(\w+)\?set \1 to (.*)\}"$/gm)].map((m) => [m[1]!, m[2]!] as const);

/** The requests the target got from running `script`, which ends well. */
async function replayedBy(script: string, env: Record<string, string>): Promise<ParsedRequest[]> {
  const before = target.requests.length;
  const r = await sh(script, env);
  expect([r.code, r.stderr]).toEqual([0, '']);
  expect(r.stdout).not.toContain('not replayed');
  return target.requests.slice(before);
}

/** The fields of `fields` named as one of `names` (in any case), in order. */
const named = (fields: readonly (readonly [string, string])[], names: readonly string[]) => fields.filter(([k]) => names.some((n) => n.toLowerCase() === k.toLowerCase()));

describe('a secret header named like a variable the shell, the environment or replay.sh sets', () => {
  const names = ['Path', 'Home', 'User', 'Shell', 'IFS', 'PWD', 'Replay-Max-Time', 'Replay-Connect-Timeout'];
  const fields = names.map((n, i) => [n, `s3cr3t-${n.toLowerCase()}-value-${i}`] as const);

  it('is asked for as HEADER_<name>, never written, and each replay sends the value recorded', async () => {
    // A GET of a POST route: REQ-METHOD fails on it.
    const script = await scriptOf([proxied(1, 'GET', '/user/confirmemail?ownerId=1', fields)], names);
    const text = readFileSync(script, 'utf8');
    for (const [, v] of fields) expect(text).not.toContain(v);
    const asked = askedIn(script);
    expect(asked).toEqual(names.map((n) => [`HEADER_${n.toUpperCase().replace(/-/g, '_')}`, `the value of the ${n} header proxy.1 was recorded with`]));
    const got = await replayedBy(script, Object.fromEntries(asked.map(([v], i) => [v, fields[i]![1]])));
    expect(got.length).toBeGreaterThan(0);
    for (const q of got) expect(named(q.fields, names)).toEqual(fields);
  });
});

describe('secret headers of several failing requests of a traffic run', () => {
  const FIRST = 'Bearer first-client-t0ken-aaaa';
  const SECOND = 'Bearer second-client-t0ken-bbbb';
  const recorded = () => [
    // REQ-METHOD: a GET of a POST route.
    proxied(1, 'GET', '/user/confirmemail?ownerId=1', [['Authorization', FIRST]]),
    // REQ-JSON-CONTENT-TYPE: a JSON record labelled text/plain.
    proxied(2, 'POST', '/supportstateuser', [['Content-Type', 'text/plain'], ['Authorization', SECOND]], '{}'),
    // REQ-JSON-TYPES: an integer as a string; the first client's value again.
    proxied(3, 'POST', '/user/confirmemail', [['Content-Type', 'application/json'], ['Authorization', FIRST]], '{"ownerId":"7"}'),
  ];

  it('are asked for as one variable per distinct value, each naming the exchange it was recorded with; each replay sends its own request\'s value', async () => {
    const script = await scriptOf(recorded());
    const text = readFileSync(script, 'utf8');
    for (const v of [FIRST, SECOND]) expect(text).not.toContain(v.slice(7));
    const asked = askedIn(script);
    expect(asked.map(([, what]) => what).sort()).toEqual(['the value of the Authorization header proxy.1 was recorded with', 'the value of the Authorization header proxy.2 was recorded with']);
    expect(asked.map(([v]) => v).sort()).toEqual(['HEADER_AUTHORIZATION', 'HEADER_AUTHORIZATION_2']);
    const env = Object.fromEntries(asked.map(([v, what]) => [v, what.includes('proxy.1') ? FIRST : SECOND]));
    const got = await replayedBy(script, env);
    // Each request line the run recorded, replayed with the value it was recorded with.
    const sentWith = new Map(recorded().map((ex) => [`${ex.request.method} ${new URL(ex.request.url).pathname}${new URL(ex.request.url).search} HTTP/1.1`, ex.request.headers['authorization']]));
    expect(new Set(got.map((q) => q.line))).toEqual(new Set(sentWith.keys()));
    for (const q of got) expect([q.line, named(q.fields, ['Authorization'])]).toEqual([q.line, [['Authorization', sentWith.get(q.line)]]]);
  });
});

describe('a failing request of a traffic run that holds a masked value the user cannot supply', () => {
  it('is listed as not replayed, and the script asks for none of its secret headers', async () => {
    // REQ-JSON-CONTENT-TYPE: a JSON record labelled text/plain; userName is personal data, masked.
    const script = await scriptOf([proxied(1, 'POST', '/supportstateuser', [['Content-Type', 'text/plain'], ['Authorization', 'Bearer lone-client-t0ken-cccc']], '{"userName":"ana-maria-lopez"}')]);
    expect(askedIn(script)).toEqual([]);
    const r = await sh(script, {});
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^REQ-JSON-CONTENT-TYPE \(MUST\) proxy\.1: not replayed: /m);
  });
});

describe('the line of a request not replayed for a masked value', () => {
  const BY_HAND = 'send its curl command from summary.json by hand, each value in place of its marker';
  const TOKEN = 'first-client-t0ken-aaaa';
  const recorded = () => [
    // REQ-JSON-CONTENT-TYPE: a JSON record labelled text/plain; userName is personal data.
    proxied(1, 'POST', '/supportstateuser', [['Content-Type', 'text/plain']], '{"userName":"ana-maria-lopez"}'),
    // REQ-JSON-TYPES: an integer as a string; recoveryToken is a credential.
    proxied(2, 'POST', '/user/confirmemail', [['Content-Type', 'application/json']], '{"ownerId":"7","recoveryToken":"rec0very-t0ken-dddd"}'),
    // REQ-METHOD: a GET of a POST route, the Authorization header's token in its query too.
    proxied(3, 'GET', `/user/confirmemail?ownerId=1&ref=${TOKEN}`, [['Authorization', `Bearer ${TOKEN}`]]),
  ];
  const lines = async (script: string) => {
    const r = await sh(script, { HEADER_AUTHORIZATION: `Bearer ${TOKEN}` });
    expect([r.code, r.stderr]).toEqual([0, '']);
    return r.stdout.split('\n').filter((l) => l.includes('not replayed'));
  };

  it('names what was masked and where, never a value, and the way out: --show-personal-data for personal data a client sent, else by hand', async () => {
    const script = await scriptOf(recorded());
    const personal = 'not replayed: its request holds personal data (userName), masked in the reports: a run with --show-personal-data keeps personal data in its reports, and its replay.sh sends it';
    expect((await lines(script)).sort()).toEqual([
      // The answer {} lacks the record's members: a check of it, shown by the first exchange.
      `JSON-VALUE-MEMBERS (MUST) proxy.1: ${personal}`,
      `REQ-JSON-CONTENT-TYPE (MUST) proxy.1: ${personal}`,
      `REQ-JSON-TYPES (MUST) proxy.2: not replayed: its request holds a credential (recoveryToken), masked in the reports: ${BY_HAND}`,
      `REQ-METHOD (MUST) proxy.3: not replayed: its request holds a secret header's value outside its field (ref), masked in the reports (replay.sh asks for whole secret fields only: HEADER_AUTHORIZATION): ${BY_HAND}`,
    ]);
    const text = readFileSync(script, 'utf8');
    for (const v of ['ana-maria-lopez', 'rec0very-t0ken-dddd', TOKEN]) expect(text).not.toContain(v);
  });

  it('keeps its word: with --show-personal-data the request holding personal data is replayed, as sent', async () => {
    const script = await scriptOf(recorded(), [], true);
    const before = target.requests.length;
    const got = await lines(script);
    expect(got.map((l) => l.split(':')[0]).sort()).toEqual(['REQ-JSON-TYPES (MUST) proxy.2', 'REQ-METHOD (MUST) proxy.3']);
    const sent = target.requests.slice(before);
    // Both checks of proxy.1 replay it.
    expect(sent.map((q) => [q.line, q.body.toString()])).toEqual(Array(2).fill(['POST /supportstateuser HTTP/1.1', '{"userName":"ana-maria-lopez"}']));
  });
});
