// The differential run (issue 15), in process: values compared as what they mean whatever the wire
// and style, noise learned from the legacy's own two answers, every value fault found at exactly its
// declared paths (and failing no conformance check), and bounded memory over many accounts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { objectOf } from '../lib/contract/types.js';
import { UserDetails } from '../lib/contract/records.js';
import { accountRequests } from '../lib/engine/accounts.js';
import { answerOf, compareAnswers, DifferenceTally, runDifferential, type DifferentialResult } from '../lib/engine/differential.js';
import { compareCanon, type ValueDifference } from '../lib/engine/canonical.js';
import { recordedResponse, type Exchange, type ExchangeSpec } from '../lib/http/exchange.js';
import { referenceUserDetails } from '../lib/reference/data.js';
import type { Variant } from '../lib/reference/profile.js';
import { startReference, type ReferenceOptions } from '../lib/reference/server.js';
import { STYLES } from '../lib/reference/variants.js';
import { RANDOM_TOKENS, VALUE_FAULTS } from '../lib/reference/value-faults.js';
import { Redactor } from '../lib/reporting/redact.js';
import { call, postSoap } from './helpers/reference.js';
import { inBatches, outcomeUnder } from './helpers/matrix.js';

/** The fixture record with what some value faults need to show: a null array, a padded string. */
const DATA = { ...referenceUserDetails(), possibleLoginTypes: null, mailAddress: '  PO Box 42, Baton Rouge, LA 70801 ' };

const running: { close(): Promise<void> }[] = [];
afterAll(async () => { await Promise.all(running.map((r) => r.close())); });
const reference = async (options: ReferenceOptions) => { const r = await startReference(options); running.push(r); return r; };

async function differential(legacy: ReferenceOptions, candidate: ReferenceOptions, extra: { cases?: AsyncIterable<ExchangeSpec> } = {}): Promise<DifferentialResult> {
  const [l, c] = await Promise.all([startReference(legacy), startReference(candidate)]);
  try {
    return await runDifferential({
      baseUrl: c.url, legacyUrl: l.url, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 30_000, maxBodyBytes: 10 * 1024 * 1024, ...extra,
    });
  } finally {
    await Promise.all([l.close(), c.close()]);
  }
}

/** Operation -> the paths that differ beyond noise. */
const differingPaths = (r: DifferentialResult) => Object.fromEntries(r.operations.map((o) => [o.operation, [...o.paths.keys()].sort()]));
const noisePaths = (r: DifferentialResult) => Object.fromEntries(r.operations.map((o) => [o.operation, [...o.noise.keys()].sort()]));

/** An answer as the engine decodes it (a recorded exchange of the request that got it). */
const answer = (method: string, url: string, headers: Record<string, string>, status: number, type: string, body: string) => {
  const ex: Exchange = {
    id: 'x', title: 'x', origin: { source: 'probe', vouched: true }, startedAt: '', durationMs: 0,
    request: { method, url, headers }, response: recordedResponse(status, { 'content-type': type }, Buffer.from(body)),
  };
  return answerOf(new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES }));
};
const compareRecords = (a: ReturnType<typeof answer>, b: ReturnType<typeof answer>): ValueDifference[] => {
  const out: ValueDifference[] = [];
  compareCanon(objectOf(UserDetails), a.record!, b.record!, '', out);
  return out;
};

/** Styles that change the data served (empty collections, nulls): another record, not another writing. */
const DATA_STYLES = STYLES.filter((s) => s.editData);
const WRITING_STYLES = STYLES.filter((s) => !s.editData);

describe('values compared as what they mean', () => {
  it('the JSON and the SOAP answer of the same record compare equal, under every style of writing', async () => {
    await inBatches(WRITING_STYLES, 8, async (style) => {
      const ref = await reference({ variants: [style] });
      const json = await call(`${ref.url}/supportstateuser`, { json: {} });
      const soap = await postSoap(`${ref.url}/soap11`);
      const a = answer('POST', `${ref.url}/supportstateuser`, { 'content-type': 'application/json' }, json.status, json.type!, json.body);
      const b = answer('POST', `${ref.url}/soap11`, { 'content-type': 'text/xml', soapaction: 'ImpersonateLogoutRequest' }, soap.status, soap.type!, soap.body);
      expect(a.record && b.record, style.name).toBeTruthy();
      expect(compareRecords(a, b), style.name).toEqual([]);
    });
  });

  it('but a value changed in one of them is found, with how it changed', async () => {
    const ref = await reference({});
    const json = await call(`${ref.url}/supportstateuser`, { json: {} });
    const soap = await postSoap(`${ref.url}/soap11`);
    const a = answer('POST', `${ref.url}/supportstateuser`, { 'content-type': 'application/json' }, 200, json.type!, json.body.replace('"createdDate":"2019-03-01T08', '"createdDate":"2019-03-02T08'));
    const b = answer('POST', `${ref.url}/soap11`, { 'content-type': 'text/xml', soapaction: 'ImpersonateLogoutRequest' }, 200, soap.type!, soap.body);
    expect(compareRecords(a, b).map((d) => [d.path, d.how])).toEqual([['createdDate', '-1 day']]);
  });
});

describe('reference against reference', () => {
  it('every style of writing, against the plain reference in both directions: no difference, no noise, both conformant', async () => {
    const runs = await inBatches(WRITING_STYLES.flatMap((s) => [[s, 'legacy'], [s, 'candidate']] as const), 6, async ([style, side]) => {
      const styled = { variants: [style] };
      return { name: `${style.name} as ${side}`, r: await differential(side === 'legacy' ? styled : {}, side === 'candidate' ? styled : {}) };
    });
    for (const { name, r } of runs) {
      expect(r.compared, name).toBe(20);
      expect({ name, differences: r.differences, paths: differingPaths(r), noise: noisePaths(r) }).toEqual({
        name, differences: 0, paths: { SupportStateUserLoginRequest: [], ConfirmEmailRequest: [], ImpersonateLogoutRequest: [] },
        noise: { SupportStateUserLoginRequest: [], ConfirmEmailRequest: [], ImpersonateLogoutRequest: [] },
      });
      expect([r.candidate.verdict, r.legacy.verdict], name).toEqual(['conformant', 'conformant']);
    }
  });

  it('styles that serve other data (empty collections, nulls) are differences, not sameness', async () => {
    for (const style of DATA_STYLES) expect((await differential({}, { variants: [style] })).differences, style.name).toBeGreaterThan(0);
  });

  it('random tokens on both sides: only noise, at the credential paths', async () => {
    const r = await differential({ variants: [RANDOM_TOKENS] }, { variants: [RANDOM_TOKENS] });
    const tokens = ['apiKey', 'basicAuthHeader', 'hxToken', 'jToken'];
    expect(r.differences).toBe(0);
    expect(noisePaths(r)).toEqual({ SupportStateUserLoginRequest: tokens, ImpersonateLogoutRequest: tokens, ConfirmEmailRequest: [] });
    const login = r.operations.find((o) => o.operation === 'SupportStateUserLoginRequest')!;
    // Every record answer (the 9 POSTs of the login, the compressed one included) varied, and the candidate's differences were discounted.
    expect([...login.noise.values()].map((n) => [n.legacyVaried, n.candidateDiffered])).toEqual(tokens.map(() => [9, 9]));
  });

  it('random tokens on the candidate only are differences (noise is learned from the legacy, never from the candidate)', async () => {
    const r = await differential({}, { variants: [RANDOM_TOKENS] });
    expect(differingPaths(r).SupportStateUserLoginRequest).toEqual(['apiKey', 'basicAuthHeader', 'hxToken', 'jToken']);
  });
});

describe('value faults', () => {
  it('each is found at exactly its declared paths, in JSON and in SOAP answers, with examples', async () => {
    const runs = await inBatches(VALUE_FAULTS, 6, async (fault) => ({ fault, r: await differential({ userDetails: DATA }, { userDetails: DATA, variants: [fault] }) }));
    for (const { fault, r } of runs) {
      expect({ fault: fault.name, paths: differingPaths(r) }).toEqual({
        fault: fault.name, paths: { SupportStateUserLoginRequest: [...fault.paths.json], ImpersonateLogoutRequest: [...fault.paths.soap], ConfirmEmailRequest: [] },
      });
      for (const o of r.operations) {
        for (const p of o.paths.values()) {
          expect(p.examples.length, `${fault.name} ${p.path}`).toBe(Math.min(p.differing, 5));
          expect(p.examples[0]!.how, fault.name).not.toBe('');
          expect(p.examples[0]!.legacy, fault.name).not.toBe(p.examples[0]!.candidate);
        }
      }
      expect(r.candidate.verdict, fault.name).toBe('conformant');
    }
  });

  it('each fails no conformance check (conformant in type, different in value)', async () => {
    const outcomes = await inBatches(VALUE_FAULTS, 6, async (f) => ({ name: f.name, outcome: await outcomeUnder([f], DATA) }));
    for (const { name, outcome } of outcomes) expect({ name, ...outcome }).toEqual({ name, verdict: 'conformant', failed: { MUST: [], SHOULD: [] } });
  });

  it('each changes something on the data the test serves (none is silently a no-op)', () => {
    for (const f of VALUE_FAULTS) expect(f.editData!(DATA, 'userDetails'), f.name).not.toEqual(DATA);
  });
});

describe('over accounts', () => {
  const work = mkdtempSync(join(tmpdir(), 'differential-'));
  const ACCOUNTS = 300;
  const file = join(work, 'accounts.jsonl');
  writeFileSync(file, `${Array.from({ length: ACCOUNTS }, (_, i) => JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i}`, searchValues: `s${i}` } })).join('\n')}\n`);

  it('a fault hitting a fraction of the accounts is found on that fraction only, in bounded memory', async () => {
    const fault = VALUE_FAULTS.find((f) => f.name === 'boolean-flipped')!;
    const variants: Variant[] = [fault];
    const r = await differential({}, { variants, faultRate: 0.3 }, { cases: accountRequests(file, {}) });
    const login = r.operations.find((o) => o.operation === 'SupportStateUserLoginRequest')!;
    expect(login.compared).toBe(ACCOUNTS + 10);
    expect([...login.paths.keys()]).toEqual(['isEulaAgreed']);
    const at = login.paths.get('isEulaAgreed')!;
    // The accounts a fault hits are fixed per account (population.ts hitByFault): at 30%, 88 of the
    // 300 accounts and the probes' sample account (29.2%, within the binomial spread of 90 +- 8).
    expect(at.differing).toBe(88);
    expect(at.examples).toHaveLength(5);
    expect(at.examples.filter((e) => e.case !== undefined).length).toBeGreaterThan(0);
    // Nothing per request kept: the candidate's report keeps its probes and a few examples' exchanges only.
    expect(r.candidate.exchanges.length).toBeLessThanOrEqual(20 + 5 * r.candidate.results.length);
    expect(r.candidate.counts.cases).toBe(ACCOUNTS);
    expect(r.candidate.verdict).toBe('conformant');
  });
});

describe('noise, flaky legacies and values JSON.parse does not keep (review)', () => {
  const RECORD = referenceUserDetails();
  const LOGIN: ExchangeSpec = { id: 'login.post', origin: { source: 'probe', vouched: true }, title: 't', method: 'POST', path: '/supportstateuser', headers: { 'content-type': 'application/json' }, body: '{}' };
  const view = (status: number, type: string, body: string) => new ExchangeView({
    id: 'x', title: 'x', origin: { source: 'probe', vouched: true }, startedAt: '', durationMs: 0,
    request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: { 'content-type': 'application/json' } },
    response: recordedResponse(status, { 'content-type': type }, Buffer.from(body)),
  }, { namespaces: DEFAULT_NAMESPACES });
  const json = (edit: Record<string, unknown> = {}, raw: (t: string) => string = (t) => t) => view(200, 'application/json', raw(JSON.stringify({ ...RECORD, ...edit })));
  /** The login operation's tally after one request's three answers. */
  const tally = (first: ExchangeView, candidate: ExchangeView, second: ExchangeView) => {
    const t = new DifferenceTally();
    t.add(LOGIN, first, candidate, second);
    return t.operations()[0]!;
  };

  it('a token the legacy changes is noise; one the candidate drops, empties or retypes is a difference', () => {
    const [l1, l2] = [json({ hxToken: 'hx-1', jToken: 'j-1', apiKey: 'k-1' }), json({ hxToken: 'hx-2', jToken: 'j-2', apiKey: 'k-2' })];
    const fresh = tally(l1, json({ hxToken: 'hx-3', jToken: 'j-3', apiKey: 'k-3' }), l2);
    expect([...fresh.paths.keys()]).toEqual([]);
    expect([...fresh.noise.keys()].sort()).toEqual(['apiKey', 'hxToken', 'jToken']);
    const dropped = tally(l1, json({ hxToken: undefined, jToken: '', apiKey: 42 }), l2);
    expect([...dropped.paths.keys()].sort()).toEqual(['apiKey', 'hxToken', 'jToken']);
    expect(dropped.paths.get('hxToken')!.examples[0]!.how).toBe('a value → null (or absent)');
  });

  it('a legacy that answered neither time (silent past --timeout) leaves the request not compared; a candidate silent where the legacy answered differs', () => {
    const silent = () => new ExchangeView({
      id: 'x', title: 'x', origin: { source: 'probe', vouched: true }, startedAt: '', durationMs: 0,
      request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: { 'content-type': 'application/json' } },
      error: { kind: 'headers-timeout', message: 'no response headers within 0.3 s' },
    }, { namespaces: DEFAULT_NAMESPACES });
    const legacySilent = tally(silent(), json(), silent());
    expect([legacySilent.compared, legacySilent.inconclusive, legacySilent.paths.size]).toEqual([0, 1, 0]);
    const candidateSilent = tally(json(), silent(), json());
    expect([candidateSilent.compared, candidateSilent.inconclusive, [...candidateSilent.paths.keys()]]).toEqual([1, 0, ['HTTP status', 'Content-Type']]);
  });

  it('a legacy that answers a request two ways (a 503 once) leaves it not compared, never a difference', () => {
    const t = tally(json({ hxToken: 'hx-1' }), json({ hxToken: 'hx-3' }), view(503, 'text/plain', 'busy'));
    expect([t.compared, t.inconclusive, t.paths.size, t.noise.size]).toEqual([0, 1, 0, 0]);
  });

  it('integers beyond 2^53 and written with a fraction are compared as written; a date that does not exist is no instant', () => {
    const userId = (lexeme: string) => json({}, (t) => t.replace(/"userId":\d+/, `"userId":${lexeme}`));
    const same = json();
    expect([...tally(userId('9007199254740993'), userId('9007199254740992'), userId('9007199254740993')).paths.keys()]).toEqual(['userId']);
    expect([...tally(same, userId('1048576.0'), same).paths.keys()]).toEqual(['userId']);
    expect([...tally(userId('9007199254740993'), userId('9007199254740993'), userId('9007199254740993')).paths.keys()]).toEqual([]);
    const born = (d: string) => json({ birthDate: d });
    expect([...tally(born('2019-03-01T08:15:30'), born('2019-02-29T08:15:30'), born('2019-03-01T08:15:30')).paths.keys()]).toEqual(['birthDate']);
  });

  // A legacy writing a JSON datetime without its fraction (an older serializer) against a candidate
  // writing .9999999: a sub-second difference, never hidden as "the legacy carries no fraction".
  it('a JSON datetime without a fraction is compared as .0000000 against another JSON datetime', () => {
    const modified = (d: string) => json({ modifiedDate: d });
    expect([...tally(modified('2026-11-20T23:59:59'), modified('2026-11-20T23:59:59.9999999'), modified('2026-11-20T23:59:59')).paths.keys()]).toEqual(['modifiedDate']);
    expect([...tally(modified('2026-11-20T23:59:59'), modified('2026-11-20T23:59:59.0000000'), modified('2026-11-20T23:59:59')).paths.keys()]).toEqual([]);
  });

  it("an example's marker says what the withheld value was: null, a number, not the length of its text", () => {
    const t = tally(json(), json({ birthDate: null, userName: 7 }), json());
    const [birth, name] = [t.paths.get('birthDate')!.examples[0]!, t.paths.get('userName')!.examples[0]!];
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    expect(r.value(birth.candidate, 'personal', birth.candidateTyped)).toBe('«personal: null»');
    expect(r.value(name.candidate, 'personal', name.candidateTyped)).toBe('«personal: number»');
    expect(r.value(name.legacy, 'personal', name.legacyTyped)).toBe(`«personal: string, ${[...RECORD.userName as string].length} chars»`);
  });
});

describe('a status difference on a JSONP request', () => {
  // The callback is read of a 200 answer only: a 201 wrapping the same script had also counted a
  // "JSONP callback → none" difference, on both operations.
  it('is one difference, the status, never a callback difference besides', () => {
    const shape = UserDetails;
    const paths = (a: Parameters<typeof compareAnswers>[1], b: Parameters<typeof compareAnswers>[2]) => compareAnswers(shape, a, b).map((d) => d.path);
    expect(paths({ status: '200', media: 'JavaScript', callback: 'conformanceCallback' }, { status: '201', media: 'JavaScript' })).toEqual(['HTTP status']);
    expect(paths({ status: '500', media: 'JSON' }, { status: '200', media: 'JavaScript', callback: 'conformanceCallback' })).toEqual(['HTTP status', 'Content-Type']);
    expect(paths({ status: '200', media: 'JavaScript', callback: 'a' }, { status: '200', media: 'JavaScript', callback: 'b' })).toEqual(['JSONP callback']);
  });
});
