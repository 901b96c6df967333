// A generated request's body is the harness's own text: every output shows it exactly as sent (its
// request text, its curl, the replay, a value of it quoted as evidence), though the target's answer
// taught the redactor a piece of it as the target's personal value; that value stays masked in the
// answer and everywhere else. A probe's sample value likewise (sample-userName), though the target
// echoes a piece of it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { published } from '../lib/reporting/boundary.js';
import { displayBlock } from '../lib/reporting/display.js';
import { curlCommand, requestText, responseText } from '../lib/reporting/exchange-text.js';
import { Redactor } from '../lib/reporting/redact.js';
import { replayBounds } from '../lib/reporting/replay-script.js';
import { buildReport } from '../lib/reporting/report.js';
import { MARKER } from '../lib/reporting/sensitive-ranges.js';
import { runCli } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

/** The bounds of a run at the default --timeout. */
const BOUNDS = replayBounds({ configuration: {} });

const exchange = (id: string, source: 'generated' | 'probe', body: string, answer: string): Exchange => ({
  id, title: id, origin: { source, vouched: source === 'probe' },
  request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: { 'content-type': 'application/json' }, body },
  response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(answer)),
  startedAt: new Date(0).toISOString(), durationMs: 1,
});

/** What buildReport does with an exchange: a scope learns it, the run learns its fingerprints, and
 *  its texts cross the boundary (published) through that scope. */
function reported(r: Redactor, ex: Exchange): { request: string; response: string; curl: string; scope: Redactor } {
  r.learnFingerprints(ex);
  const scope = r.scope();
  scope.learnExchange(ex);
  const texts = { request: requestText(ex, scope), response: responseText(ex, scope), curl: curlCommand(ex, scope, BOUNDS) };
  const shownBy = new Map(Object.values(texts).map((t) => [t, scope]));
  return { ...published(texts, r, new Set(), shownBy), scope };
}

// The reference's answer to the request of JSON-ENUM-SEEN's shrunk failure (--generate 1000 --seed 1),
// cut down: displayName is 516 of the 6 398 x of searchValues.
const GENERATED = `&%Δ\\\u001f${'x'.repeat(6398)}\u007f\u0000`;
const BODY = JSON.stringify({ searchValues: GENERATED });

describe('a generated request\'s body, a piece of which the target answers in a personal member', () => {
  it('is shown exactly as sent in its request text and its curl; the answer hides the piece by name, and shows it as sent where it echoes it elsewhere', () => {
    const ex = exchange('gen.login.1', 'generated', BODY, JSON.stringify({ displayName: 'x'.repeat(516), company: `c ${'x'.repeat(516)} c` }));
    const out = reported(new Redactor({ showPersonalData: false, secrets: [] }), ex);
    // As sent, its DEL written \x7f as every output writes a control character (display.ts).
    expect(out.request.endsWith(`\n\n${displayBlock(BODY)}`)).toBe(true);
    expect(out.request).not.toMatch(MARKER);
    expect(out.curl).toContain(`head -c 6398 /dev/zero | tr '\\0' 'x'`);
    expect(out.curl).not.toMatch(MARKER);
    // The piece is the harness's own text, not learned (Redactor.pieceOfOwn; test/generated-echo-unmasked.test.ts).
    expect(out.response).toContain(`{"displayName":"«personal: string, 516 chars»","company":"c ${'x'.repeat(516)} c"}`);
  });

  it('its curl writes every character an output shows escaped (a control, CR, a bidi mark) by its bytes: shown, it still sends the body as sent', async () => {
    const body = JSON.stringify({ searchValues: 'a\r\nb\u007f c\u202ed\u0085é' }).replace('é', '\u0000é');
    const curl = curlCommand(exchange('gen.login.5', 'generated', body, '{}'), new Redactor({ showPersonalData: false, secrets: [] }), BOUNDS);
    expect(displayBlock(curl)).toBe(curl);
    const writer = curl.slice(0, curl.indexOf(' | curl '));
    const sent = await new Promise<Buffer>((resolve, reject) => execFile('sh', ['-c', writer], { encoding: 'buffer', timeout: 30_000 }, (e, stdout) => (e ? reject(e) : resolve(stdout))));
    expect(sent.equals(Buffer.from(body, 'utf8'))).toBe(true);
  });

  it('is shown as sent though another exchange taught the whole run a word of it (a fingerprint)', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    const word = 'Quokka7Zephyr';
    // A probe's answer: the target's own personal value, learned run-wide.
    reported(r, exchange('login.post', 'probe', '{"userName":"sample-userName"}', `{"displayName":"${word}"}`));
    const body = JSON.stringify({ searchValues: `gen ${word} gen`, company: word });
    const out = reported(r, exchange('gen.login.2', 'generated', body, '{"company":"comp"}'));
    expect(out.request.endsWith(`\n\n${body}`)).toBe(true);
    expect(out.curl).toContain(`--data-binary '${body}'`);
    // Anywhere but in what the harness sent, it is the target's value: masked.
    expect(r.line(`echoed ${word} here`)).toBe('echoed «secret: 13 chars» here');
    expect(out.scope.line(`echoed ${word} here`)).toBe('echoed «secret: 13 chars» here');
  });

  it('a target\'s secret inside the answer\'s echo of the generated value stays masked there', () => {
    const secret = 'Real Person Nm8';
    const body = JSON.stringify({ searchValues: 'aa Gen Value 7q bb' });
    // The target echoes the generated value in a member that is not personal with its secret inside,
    // and answers the secret in one that is: masked where the secret is. (A secret that is a piece of
    // the generated value is the harness's text, shown in the request as sent: not learned.)
    const out = reported(new Redactor({ showPersonalData: false, secrets: [] }), exchange('gen.login.3', 'generated', body, JSON.stringify({ company: `aa Gen Value 7q ${secret} bb`, displayName: secret })));
    expect(out.request.endsWith(`\n\n${body}`)).toBe(true);
    expect(out.response).toContain('"company":"aa Gen Value 7q «personal: string, 15 chars» bb"');
    expect(out.response).not.toContain(secret);
  });

  it('a value of it quoted as evidence is shown as sent; a target value that is only a piece of it is not', () => {
    const ex = exchange('gen.login.4', 'generated', JSON.stringify({ userName: GENERATED }), JSON.stringify({ displayName: 'x'.repeat(516) }));
    const scope = new Redactor({ showPersonalData: false, secrets: [] }).scope();
    scope.learnExchange(ex);
    expect(scope.value(GENERATED, 'personal')).toBe(GENERATED);
    expect(scope.value('x'.repeat(516), 'personal')).toBe('«personal: string, 516 chars»');
  });
});

describe('a probe\'s sample value, a piece of which the target answers in a personal member', () => {
  it('is shown as sent in the probe\'s request; the answer hides the piece by name; a secret the run was given stays masked', () => {
    const body = '{"userName":"sample-userName","searchValues":"sample-searchValues","password":"S3cret-Passw0rd"}';
    const r = new Redactor({ showPersonalData: false, secrets: ['S3cret-Passw0rd'] });
    const out = reported(r, exchange('login.post', 'probe', body, '{"displayName":"sample-userNa","lastName":"ample-searchVal"}'));
    const shown = '{"userName":"sample-userName","searchValues":"sample-searchValues","password":"«credential: string, 15 chars»"}';
    expect(out.request.endsWith(`\n\n${shown}`)).toBe(true);
    expect(out.curl).toContain(shown);
    expect(out.response).toContain('{"displayName":"«personal: string, 13 chars»","lastName":"«personal: string, 15 chars»"}');
  });
});

describe('a report of a run', () => {
  it('shows a generated request as sent though another exchange taught the run a word of it; elsewhere the word is masked', async () => {
    const word = 'Quokka7Zephyr';
    const body = JSON.stringify({ searchValues: `gen ${word} gen` });
    // A guid member not a guid: JSON-GUID fails on both, so both are kept and shown.
    const answer = (more: object) => JSON.stringify({ siteId: 'not-a-guid', ...more });
    const run = await runConformance({
      baseUrl: 'http://svc.test', mode: 'traffic', checks: [checkById.get('JSON-GUID')!], namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: 1 << 20, probes: false,
      recorded: [exchange('har.1', 'probe', '{}', answer({ displayName: word })), exchange('gen.login.6', 'generated', body, answer({ company: `co ${word}` }))],
    });
    const report = buildReport(run, { redactor: new Redactor({ showPersonalData: false, secrets: [] }), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: {} });
    const gen = report.exchanges.find((e) => e.id === 'gen.login.6')!;
    expect(gen.request.endsWith(`\n\n${body}`)).toBe(true);
    expect(gen.curl).toContain(`--data-binary '${body}'`);
    expect(gen.response).toContain('"company":"co «secret: 13 chars»"');
    expect(JSON.stringify(report.exchanges.find((e) => e.id === 'har.1'))).not.toContain(word);
  });
});

// ---- the CLI run of the defect ----------------------------------------------------------------------

interface Summary {
  checks: { id: string; level: string; status: string; replay?: string; shrunk?: { exchange: string; request: string; curl: string } }[];
  exchanges: { id: string; status?: number; responseSha256?: string }[];
}

const reference = useReference();

describe('--generate 1000 --seed 1 against the reference', () => {
  it('shows JSON-ENUM-SEEN\'s shrunk request as sent, and replay.sh re-sends it and gets the run\'s answer again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'generated-shown-'));
    const run = await runCli(['--base-url', reference.url, '--generate', '1000', '--seed', '1', '--report-dir', dir, '--reports', 'summary']);
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
    const c = summary.checks.find((x) => x.id === 'JSON-ENUM-SEEN')!;
    expect(c.status).toBe('failed');
    // The run sends no secret (no --header, no accounts): nothing in a generated request is masked.
    for (const text of [c.replay!, c.shrunk!.request, c.shrunk!.curl]) expect(text).not.toMatch(MARKER);
    for (const curl of [c.replay!, c.shrunk!.curl]) expect(curl).toContain(`head -c 6398 /dev/zero | tr '\\0' 'x'; printf '\\177\\\\u0000"}'`);
    expect(c.shrunk!.request).toContain(`\n\n{"searchValues":"&%Δ\\\\\\u001f${'x'.repeat(6398)}\\x7f\\u0000"}`);
    expect(readFileSync(join(dir, 'replay.sh'), 'utf8')).not.toContain('not replayed');
    // Its DEL and every other control character written by their bytes: the very request is sent again.
    const out = await new Promise<string>((resolve, reject) => execFile('sh', [join(dir, 'replay.sh')], { timeout: 120_000 }, (e, stdout) => (e ? reject(e) : resolve(stdout))));
    const ex = summary.exchanges.find((e) => e.id === c.shrunk!.exchange)!;
    expect(out.split('\n'), out).toContain(`JSON-ENUM-SEEN (SHOULD) ${ex.id}: ${ex.status} sha256 ${ex.responseSha256} (as in the run)`);
  }, 300_000);
});
