// replay.sh against the whole fault matrix (issue 26, "Reproduction that reproduces"): for every fault
// of docs/sensitivity-matrix.md that fails a check over HTTP (the probed faults, grouped by what they
// break: JSON records, SOAP envelopes, HTTP routes and formats; and the faults only generated requests
// find), the harness is run against a reference serving that fault alone, as the matrix runs it, and
// the replay.sh it wrote is run against that same reference: each failed check's request must get the
// run's status and body SHA-256 again, and reach the reference as the run sent it (method, path,
// headers, body). The harness runs in this process (as `conformance --reports
// summary --header …` runs it: config, session, engine, writers), so the file costs one engine run
// per fault, not one CLI process each. A --header secret is a shell variable in replay.sh, never its value.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, shardOptions } from '../lib/cli/config.js';
import { openSession, selectedChecks, setupOf } from '../lib/cli/session.js';
import { DEFAULT_GENERATED_CASES } from '../lib/cli/config.js';
import { runConformance } from '../lib/engine/run.js';
import { startReference, type ReceivedRequest } from '../lib/reference/server.js';
import { FAULTS, type Fault } from '../lib/reference/variants.js';
import { REPLAY_FILE } from '../lib/reporting/replay-script.js';
import { inBatches } from './helpers/matrix.js';

const SECRET = 'r3play-m4trix-k3y-6c1d0e';
/** The seed of the generated runs: test/generated.test.ts shows seed 1 finds each input-dependent fault. */
const SEED = 1;

type Kind = 'JSON' | 'SOAP' | 'HTTP' | 'generated';
/** The matrix's rows by what the fault edits: the JSON record, the SOAP envelope, or the HTTP answer. */
const kindOf = (f: Fault): Kind => (f.evidence ? 'generated' : f.editSoap ? 'SOAP' : f.editJson ? 'JSON' : 'HTTP');

interface Summary {
  checks: { id: string; level: string; status: string; evidence: { exchange: string }[]; shrunk?: { exchange: string } }[];
  exchanges: { id: string; status?: number; responseSha256?: string }[];
}

/** A request as sent: method, path and query, the headers the harness set, the body. */
interface Sent {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

interface Replayed {
  readonly summary: Summary;
  /** By exchange id: each failed check's request as the run sent it (the engine's record, unredacted). */
  readonly sent: ReadonlyMap<string, Sent>;
  /** What the reference received while replay.sh ran, in order. */
  readonly replayedRequests: readonly ReceivedRequest[];
  readonly script: string;
  readonly mode: number;
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const sh = (script: string, env: Record<string, string>) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  // A hang guard only: a request the reference never answers would stop at curl's own limit first.
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 120_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

const dirs: string[] = [];

/** `conformance --base-url REF --reports summary --header 'X-Api-Key: SECRET' [--generate N --seed S]`
 *  against a reference serving `fault` alone, in this process; then its replay.sh against the same reference. */
async function runAndReplay(fault: Fault): Promise<Replayed> {
  // Every request the reference receives (its body filled in once read), the run's and the replay's.
  const received: ReceivedRequest[] = [];
  const ref = await startReference({ variants: [fault], observer: { ownRoute: (r) => { received.push(r); return undefined; } } });
  try {
    const dir = mkdtempSync(join(tmpdir(), 'replay-matrix-'));
    dirs.push(dir);
    const generating = fault.evidence === 'generated';
    const parsed = parseConfig(['--base-url', ref.url, '--report-dir', dir, '--reports', 'summary', '--quiet', '--header', `X-Api-Key: ${SECRET}`,
      ...(generating ? ['--generate', String(DEFAULT_GENERATED_CASES), '--seed', String(SEED)] : [])], {});
    if (parsed.ok !== true) throw new Error(`configuration refused: ${JSON.stringify(parsed)}`);
    const config = parsed.config;
    const session = openSession(setupOf(config, dir, { baseUrl: ref.url, description: 'deployment' }));
    const generate = generating ? { count: DEFAULT_GENERATED_CASES, seed: SEED } : undefined;
    const { ca: _ca, generate: _g, ...settings } = config;
    const result = await runConformance({
      ...settings, baseUrl: ref.url, checks: selectedChecks(config), extraHeaders: config.headers,
      ...(generate ? { generate } : {}), ...shardOptions(config), useProxyEnv: false, ...session.engine(),
    });
    const fromRun = received.length;
    const written = await session.write(result, generate ? { generate } : {});
    if (written.problems.length) throw new Error(written.problems.join('; '));
    const path = join(dir, REPLAY_FILE);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
    const sent = new Map(result.exchanges.map((e) => [e.id, {
      method: e.request.method, url: e.request.url.slice(ref.url.length), headers: e.request.headers, ...(e.request.body !== undefined ? { body: e.request.body } : {}),
    }]));
    const out = await sh(path, { HEADER_X_API_KEY: SECRET });
    return { summary, sent, replayedRequests: received.slice(fromRun), script: readFileSync(path, 'utf8'), mode: statSync(path).mode & 0o777, ...out };
  } finally {
    await ref.close();
  }
}

const KINDS: readonly Kind[] = ['JSON', 'SOAP', 'HTTP', 'generated'];
const replayed = new Map<string, Replayed>();

beforeAll(async () => {
  // Two at once: each run is mostly waiting on its reference and its curl processes.
  const all = await inBatches(FAULTS, 2, runAndReplay);
  FAULTS.forEach((f, i) => replayed.set(f.name, all[i]!));
}, 600_000);

afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

it('every fault of the matrix is in one of the groups, and each group has some', () => {
  for (const k of KINDS) expect(FAULTS.filter((f) => kindOf(f) === k).length, k).toBeGreaterThan(0);
  expect(FAULTS.filter((f) => !KINDS.includes(kindOf(f)))).toEqual([]);
});

for (const kind of KINDS) {
  describe(`${kind} faults: replay.sh re-sends every failed check's request and gets the run's status and body SHA-256 again`, () => {
    for (const fault of FAULTS.filter((f) => kindOf(f) === kind)) {
      it(`${fault.name} (${fault.breaks.join(', ')})`, () => {
        const r = replayed.get(fault.name)!;
        const failed = r.summary.checks.filter((c) => c.status === 'failed');
        // The fault's declared checks fail (the matrix proves exactly which): there is something to replay.
        expect(failed.map((c) => c.id)).toEqual(expect.arrayContaining([...fault.breaks]));
        // A shrunk failure replays its smallest failing request; any other its first failing exchange.
        const replayedOf = (c: Summary['checks'][number]) => r.summary.exchanges.find((e) => e.id === (c.shrunk?.exchange ?? c.evidence[0]!.exchange));
        const lines = r.stdout.trim().split('\n');
        expect(lines).toHaveLength(failed.length);
        for (const c of failed) {
          const ex = replayedOf(c)!;
          expect(ex, c.id).toBeDefined();
          // An exchange the run got no answer to (a dropped connection) must get none again.
          expect(lines, c.id).toContain(`${c.id} (${c.level}) ${ex.id}: ${ex.status ?? 'no answer'} sha256 ${ex.responseSha256 ?? '-'} (as in the run)`);
        }
        // The reference received, from replay.sh, each of those requests as the run sent it: method, path
        // and query, every header the harness set (the secret's value included), and the body, to the byte,
        // wherever the reference reads one (it answers a route it does not serve unread, as in the run).
        expect(r.replayedRequests).toHaveLength(failed.length);
        failed.forEach((c, i) => {
          const sent = r.sent.get(replayedOf(c)!.id)!;
          const got = r.replayedRequests[i]!;
          expect({ method: got.method, url: got.url, body: got.body, headers: Object.fromEntries(Object.keys(sent.headers).map((k) => [k, got.headers[k.toLowerCase()]])) }, c.id)
            .toEqual({ method: sent.method, url: sent.url, body: got.body === undefined ? undefined : sent.body, headers: sent.headers });
        });
        // curl says on stderr why a request got no answer, and nothing else is said there.
        const unanswered = failed.filter((c) => replayedOf(c)!.status === undefined).length;
        expect(r.code).toBe(0);
        expect(r.stderr.split('\n').filter(Boolean)).toEqual(Array.from({ length: unanswered }, () => expect.stringMatching(/^curl: \(\d+\) /)));
      });
    }
  });
}

it('the bodies were compared: the reference read the body of every replayed POST it did not answer 404', () => {
  let read = 0;
  for (const fault of FAULTS) {
    const r = replayed.get(fault.name)!;
    r.summary.checks.filter((c) => c.status === 'failed').forEach((c, i) => {
      const ex = r.summary.exchanges.find((e) => e.id === (c.shrunk?.exchange ?? c.evidence[0]!.exchange))!;
      const got = r.replayedRequests[i]!;
      if (got.method !== 'POST' || ex.status === 404) return;
      expect(got.body, `${fault.name} ${c.id}`).toBeDefined();
      read++;
    });
  }
  expect(read).toBeGreaterThan(FAULTS.length);
});

describe('the --header secret in replay.sh', () => {
  it('is a shell variable the script asks for at its top, in every script, and never its value (mode 0600)', () => {
    for (const fault of FAULTS) {
      const r = replayed.get(fault.name)!;
      expect(r.mode, fault.name).toBe(0o600);
      for (const spelling of [SECRET, encodeURIComponent(SECRET), Buffer.from(SECRET).toString('base64')]) expect(r.script, fault.name).not.toContain(spelling);
      expect(r.script.split('\n').slice(0, 8).join('\n'), fault.name).toContain(': "${HEADER_X_API_KEY?set HEADER_X_API_KEY to the value of the --header x-api-key}"');
      // Every replayed request sends it, as the run did.
      const curls = r.script.split('\n').filter((l) => l.includes('curl '));
      expect(curls.length, fault.name).toBeGreaterThan(0);
      for (const l of curls) expect(l, fault.name).toContain(`-H "$(field 'x-api-key' "$HEADER_X_API_KEY")"`);
    }
  });
});
