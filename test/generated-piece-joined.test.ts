// A target that answers, in a personal member, a piece of a generated request's value joined to
// words of its own ("Mr <the generated userName>", "<it> Suffixed"): the piece is the harness's text
// and is not learned, so the generated value is shown as sent wherever else it stands (the answer's
// echo, a finding's message, another exchange, the JUnit report); the words the target added are
// learned and masked everywhere. A secret the run was given and a secret header's value stay masked
// whatever they are. (A piece alone: test/generated-echo-unmasked.test.ts.)
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { responseText } from '../lib/reporting/exchange-text.js';
import { junitXml } from '../lib/reporting/junit.js';
import { Redactor } from '../lib/reporting/redact.js';
import { buildReport } from '../lib/reporting/report.js';
import { ParsedXml } from '../lib/xml/model.js';
import { parseXml } from '../lib/xml/parse.js';
import { runCli, WITHOUT_HTML } from './helpers/cli.js';
import { files, readable } from './helpers/outputs.js';

/** The generated userName: one word of the harness's own. */
const G = 'Abcdefghijkl';

const generated = (id: string, body: string, answer: string, headers: Record<string, string> = {}): Exchange => ({
  id, title: id, origin: { source: 'generated', vouched: false, intent: 'valid' },
  request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: { 'content-type': body.startsWith('<') ? 'text/xml' : 'application/json' }, body },
  response: recordedResponse(200, { 'content-type': body.startsWith('<') ? 'text/xml; charset=utf-8' : 'application/json; charset=utf-8', ...headers }, Buffer.from(answer)),
  startedAt: new Date(0).toISOString(), durationMs: 1,
});
const policy = (secrets: string[] = []) => ({ showPersonalData: false, secrets });
const answerOf = (ex: Exchange): string => ex.response!.body.toString('utf8');
const soap = (inner: string) => `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>${inner}</s:Body></s:Envelope>`;

describe.each([`Mr ${G}`, `${G} Suffixed`])('a generated value joined to words of the target\'s own in a personal member ("%s")', (displayName) => {
  const ex = generated('gen.login.1', JSON.stringify({ userName: G }), JSON.stringify({ displayName, culture: G, company: `co ${G}` }));

  it('the answer hides the member by name and shows its other members\' echo of the generated value as sent', () => {
    const scope = new Redactor(policy()).scope();
    scope.learnExchange(ex);
    expect(responseText(ex, scope)).toContain(`{"displayName":"«personal: string, ${displayName.length} chars»","culture":"${G}","company":"co ${G}"}`);
    expect(scope.line(`"${G}" (a string): not a value the spec shows`)).toBe(`"${G}" (a string): not a value the spec shows`);
  });

  it('the generated value is not learned run-wide, by the walk of the parsed answer nor of its text: another exchange\'s echo is shown as sent', () => {
    for (const parsed of [JSON.parse(answerOf(ex)) as object, undefined]) {
      const r = new Redactor(policy());
      r.learnFingerprints(ex, parsed as never);
      expect(r.line(`userName ${G}`)).toBe(`userName ${G}`);
      const other = generated('gen.login.2', JSON.stringify({ searchValues: G }), JSON.stringify({ culture: G }));
      const scope = r.scope();
      scope.learnExchange(other);
      expect(responseText(other, scope)).toContain(`{"culture":"${G}"}`);
    }
  });

  it('nor by a SOAP answer\'s element, its text or its tree', () => {
    const xml = generated('gen.soap.1', soap(`<SupportStateUserLoginRequest><UserName>${G}</UserName></SupportStateUserLoginRequest>`), soap(`<R><DisplayName>${displayName}</DisplayName><Culture>${G}</Culture></R>`));
    const scope = new Redactor(policy()).scope();
    scope.learnExchange(xml);
    expect(responseText(xml, scope)).toContain(`<DisplayName>«personal: string, ${displayName.length} chars»</DisplayName><Culture>${G}</Culture>`);
    const doc = parseXml(answerOf(xml));
    if (!doc.ok) throw new Error(doc.error);
    const r = new Redactor(policy());
    r.learnFingerprints(xml, new ParsedXml(doc.root));
    expect(r.line(`culture ${G}`)).toBe(`culture ${G}`);
  });

  it('the value the target answered is still masked run-wide', () => {
    const r = new Redactor(policy());
    r.learnFingerprints(ex, JSON.parse(answerOf(ex)) as never);
    expect(r.line(`elsewhere ${displayName} here`)).toBe('elsewhere «secret: words» here');
  });
});

describe('the words the target added', () => {
  it('one of MIN_PART characters is masked wherever it stands', () => {
    const ex = generated('gen.login.3', JSON.stringify({ userName: G }), JSON.stringify({ displayName: `${G} Suffixed` }));
    const r = new Redactor(policy());
    r.learnFingerprints(ex, JSON.parse(answerOf(ex)) as never);
    expect(r.line('a Suffixed b')).toBe('a «secret: 8 chars» b');
  });

  it('its one word, however short, is masked wherever it stands, as a value of that one word would be', () => {
    const ex = generated('gen.login.4', JSON.stringify({ userName: G }), JSON.stringify({ displayName: `${G} Smith` }));
    const r = new Redactor(policy());
    r.learnFingerprints(ex, JSON.parse(answerOf(ex)) as never);
    expect(r.line(`Dear Smith, ${G}`)).toBe(`Dear «secret: 5 chars», ${G}`);
  });
});

describe('a real secret in the same place', () => {
  it('a secret the run was given is masked though the generated request holds it and the target joins it to its words', () => {
    const given = 'Quokka7Zephyr';
    const ex = generated('gen.login.5', JSON.stringify({ userName: given }), JSON.stringify({ displayName: `Mr ${given}`, culture: given }));
    const r = new Redactor(policy([given]));
    r.learnFingerprints(ex, JSON.parse(answerOf(ex)) as never);
    const scope = r.scope();
    scope.learnExchange(ex);
    expect(responseText(ex, scope)).not.toContain('Quokka');
    expect(r.line(`echoed ${given}`)).not.toContain('Quokka');
  });

  it('a secret header\'s value is masked though it is the generated value', () => {
    const ex = generated('gen.login.6', JSON.stringify({ userName: G }), JSON.stringify({ displayName: `Mr ${G}`, culture: G }), { 'set-cookie': `sid=${G}; Path=/` });
    const r = new Redactor(policy());
    r.learnFingerprints(ex, JSON.parse(answerOf(ex)) as never);
    const scope = r.scope();
    scope.learnExchange(ex);
    expect(responseText(ex, scope)).not.toContain(G);
    expect(r.line(`echoed ${G}`)).toBe('echoed «secret: 12 chars»');
  });

  it('a secret header\'s value of a shown generated exchange that joins the generated value to words of its own is learned as it is: the generated value in it is masked run-wide', () => {
    const ex = generated('gen.login.6b', JSON.stringify({ userName: G }), JSON.stringify({ culture: G }), { 'set-cookie': `sid=Mr ${G}; Path=/` });
    const r = new Redactor(policy());
    r.scope().learnExchange(ex);
    expect(r.line(`echoed ${G}`)).toBe('echoed «secret: 12 chars»');
  });
});

describe('a report of generated exchanges whose answers join the generated value to the target\'s words', () => {
  it('shows the generated value as sent in a finding\'s message and actual, another exchange\'s answer and the JUnit report', async () => {
    const run = await runConformance({
      baseUrl: 'http://svc.test', mode: 'traffic', checks: [checkById.get('JSON-ENUM-SEEN')!], namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: 1 << 20, probes: false,
      recorded: [
        generated('gen.login.7', JSON.stringify({ userName: G }), JSON.stringify({ displayName: `Mr ${G}`, originalUserTypeCode: G })),
        generated('gen.login.8', JSON.stringify({ searchValues: G }), JSON.stringify({ originalUserTypeCode: G })),
      ],
    });
    const report = buildReport(run, { redactor: new Redactor(policy()), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: {} });
    const check = report.checks.find((c) => c.id === 'JSON-ENUM-SEEN')!;
    expect(check.status).toBe('fail');
    expect(check.evidence.length).toBeGreaterThan(0);
    for (const f of check.evidence) {
      expect(f.message).toContain(`"${G}"`);
      expect(f.actual).toBe(G);
    }
    expect(JSON.stringify(check)).not.toContain('«');
    const [first, second] = report.exchanges;
    expect(first!.response).toContain(`{"displayName":"«personal: string, 15 chars»","originalUserTypeCode":"${G}"}`);
    expect(second!.response).toContain(`{"originalUserTypeCode":"${G}"}`);
    const junit = junitXml(report);
    expect(junit).toContain(G);
    expect(junit).not.toContain('«secret');
  });
});

// ---- a --generate run against a target that does so -----------------------------------------------

describe('--generate 200 --seed 1 against a target that answers "Mr <the run of x in the generated userName>"', () => {
  let url = '';
  // It answers the run of x in displayName and in originalUserTypeCode (not a value the spec shows:
  // JSON-ENUM-SEEN quotes it), an oversized request's mebibyte of x too.
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString('utf8'); }).on('end', () => {
      let userName: unknown;
      try { userName = (JSON.parse(body) as { userName?: unknown } | null)?.userName; } catch { /* not JSON */ }
      const run = typeof userName === 'string' ? userName.match(/x+/g)?.find((r) => r.length >= 8) : undefined;
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end(JSON.stringify(run ? { displayName: `Mr ${run}`, originalUserTypeCode: run } : {}));
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('masks nothing in any output: the harness\'s runs of x are shown as sent, displayName by name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'generated-piece-'));
    const run = await runCli(['--base-url', url, '--generate', '200', '--seed', '1', '--report-dir', dir, ...WITHOUT_HTML]);
    expect(run.code, run.stderr).toBe(1);
    const all = files(dir).map((f) => [f, readable(f)] as const);
    expect(all.some(([, t]) => /"displayName":"«personal: string, \d+ chars»","originalUserTypeCode":"x{1000,}"/.test(t))).toBe(true);
    for (const [f, t] of all) expect(t.match(/«secret[^»]*»/g) ?? [], f).toEqual([]);
  }, 300_000);
});
