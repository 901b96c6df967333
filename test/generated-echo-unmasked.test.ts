// A target that answers a piece of a generated request's value in a personal member (the reference
// puts 516 of the 6 398 x of --generate 1000 --seed 1's searchValues in displayName, 316 in
// impersonatedName) has that piece hidden there by name, but not learned: the piece is the harness's
// own text, so it is shown as sent wherever else the answer echoes the generated value (a member that
// is not personal, a finding's actual and message), in this exchange's outputs and the run's. A value
// the target adds of its own, and a secret the run was given, are masked wherever they stand.
import { describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { responseText } from '../lib/reporting/exchange-text.js';
import { Redactor } from '../lib/reporting/redact.js';
import { buildReport } from '../lib/reporting/report.js';
import { ParsedXml } from '../lib/xml/model.js';
import { parseXml } from '../lib/xml/parse.js';

const GENERATED = `&%Δ\\\u001f${'x'.repeat(6398)}\u007f\u0000`;
const X = (n: number) => 'x'.repeat(n);

const generated = (id: string, body: string, answer: string): Exchange => ({
  id, title: id, origin: { source: 'generated', vouched: false, intent: 'valid' },
  request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: { 'content-type': 'application/json' }, body },
  response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(answer)),
  startedAt: new Date(0).toISOString(), durationMs: 1,
});

const policy = (secrets: string[] = []) => ({ showPersonalData: false, secrets });

describe('a piece of a generated value the target answers in a personal member', () => {
  const ex = generated('gen.login.125', JSON.stringify({ searchValues: GENERATED }), JSON.stringify({ displayName: X(516), impersonatedName: X(316), culture: X(343), company: `c ${X(600)} c` }));

  it('is hidden by name there, and the answer\'s other members echoing the generated value are shown exactly', () => {
    const scope = new Redactor(policy()).scope();
    scope.learnExchange(ex);
    expect(responseText(ex, scope)).toContain(`{"displayName":"«personal: string, 516 chars»","impersonatedName":"«personal: string, 316 chars»","culture":"${X(343)}","company":"c ${X(600)} c"}`);
  });

  it('is shown exactly in a finding\'s actual and message about a member that is not personal', () => {
    const scope = new Redactor(policy()).scope();
    scope.learnExchange(ex);
    expect(scope.value(`Q${X(600)}`, undefined)).toBe(`Q${X(600)}`);
    expect(scope.line(`"Q${X(600)}" (a string): not a value the spec shows (Center)`)).toBe(`"Q${X(600)}" (a string): not a value the spec shows (Center)`);
  });

  it('is not learned run-wide, by the judging\'s walk of the parsed answer nor by its text', () => {
    for (const parsed of [JSON.parse(ex.response!.body.toString('utf8')) as object, undefined]) {
      const r = new Redactor(policy());
      r.learnFingerprints(ex, parsed as never);
      expect(r.line(`culture ${X(516)} and ${X(316)}`)).toBe(`culture ${X(516)} and ${X(316)}`);
      expect(r.scope().line(X(516))).toBe(X(516));
    }
  });

  it('nor by a SOAP answer\'s elements (a generated SOAP request)', () => {
    const soap = (inner: string) => `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>${inner}</s:Body></s:Envelope>`;
    const xml = generated('gen.soap.1', soap(`<SupportStateUserLoginRequest><SearchValues>${X(700)}</SearchValues></SupportStateUserLoginRequest>`), soap(`<R><DisplayName>${X(516)}</DisplayName><Culture>${X(600)}</Culture></R>`));
    const scope = new Redactor(policy()).scope();
    scope.learnExchange(xml);
    expect(responseText(xml, scope)).toContain(`<DisplayName>«personal: string, 516 chars»</DisplayName><Culture>${X(600)}</Culture>`);
    // The judging's walk of the parsed tree, run-wide.
    const doc = parseXml(xml.response!.body.toString('utf8'));
    if (!doc.ok) throw new Error(doc.error);
    const r = new Redactor(policy());
    r.learnFingerprints(xml, new ParsedXml(doc.root));
    expect(r.line(`culture ${X(516)}`)).toBe(`culture ${X(516)}`);
  });
});

describe('a real secret in the same position', () => {
  it('a value the target answers of its own, beside the echo, is masked there and run-wide', () => {
    const secret = 'Real Person-41';
    const ex = generated('gen.login.7', JSON.stringify({ searchValues: GENERATED }), JSON.stringify({ displayName: secret, culture: `${X(343)} ${secret}` }));
    const r = new Redactor(policy());
    r.learnFingerprints(ex, JSON.parse(ex.response!.body.toString('utf8')) as never);
    const scope = r.scope();
    scope.learnExchange(ex);
    expect(responseText(ex, scope)).toContain(`{"displayName":"«personal: string, 14 chars»","culture":"${X(343)} «personal: string, 14 chars»"}`);
    expect(scope.value(`Q${X(20)} ${secret}`, undefined)).toBe(`Q${X(20)} «personal: string, 14 chars»`);
    expect(r.line(`elsewhere ${secret}`)).not.toContain('Person');
  });

  it('a piece of the generated value and more of the target\'s own is learned whole, and masked', () => {
    const ex = generated('gen.login.8', JSON.stringify({ searchValues: GENERATED }), JSON.stringify({ displayName: `${X(516)}Zq9`, culture: `${X(516)}Zq9` }));
    const scope = new Redactor(policy()).scope();
    scope.learnExchange(ex);
    expect(responseText(ex, scope)).toContain('"culture":"«personal: string, 519 chars»"');
  });

  it('a secret the run was given is masked though it is a piece of the generated request', () => {
    const given = 'Quokka7Zephyr';
    const ex = generated('gen.login.9', JSON.stringify({ searchValues: `gen ${given} gen` }), JSON.stringify({ displayName: given, culture: `c ${given}` }));
    const scope = new Redactor(policy([given])).scope();
    scope.learnExchange(ex);
    const out = responseText(ex, scope);
    expect(out).toContain('{"displayName":"«personal: string, 13 chars»","culture":"c «secret header: string, 13 chars»"}');
    expect(out).not.toContain('Quokka');
  });
});

describe('a report of a generated exchange whose answer echoes the generated value', () => {
  it('shows a finding\'s actual and message about the enum member that echoes it as sent', async () => {
    const answer = JSON.stringify({ displayName: X(516), originalUserTypeCode: `Q${X(600)}` });
    const run = await runConformance({
      baseUrl: 'http://svc.test', mode: 'traffic', checks: [checkById.get('JSON-ENUM-SEEN')!], namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: 1 << 20, probes: false,
      recorded: [generated('gen.login.10', JSON.stringify({ searchValues: GENERATED }), answer)],
    });
    const report = buildReport(run, { redactor: new Redactor(policy()), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: {} });
    const check = report.checks.find((c) => c.id === 'JSON-ENUM-SEEN')!;
    expect(check.status).toBe('fail');
    const finding = check.evidence.find((f) => f.path === '$.originalUserTypeCode')!;
    expect(finding.actual).toMatch(/^Qx{150,}/);
    expect(finding.message).toMatch(/^"Qx{20,}/);
    expect(JSON.stringify(check)).not.toContain('«');
    expect(report.exchanges[0]!.response).toContain('"displayName":"«personal: string, 516 chars»"');
  });
});
