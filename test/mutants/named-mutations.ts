// Named source mutations the tests must kill (issue 22): the five weak tests once let through, and
// one per check area, the redactor and the tally. Each edit is an exact piece of source (it must occur
// exactly once, so a stale entry fails loudly instead of mutating nothing) and the test files, with
// an optional title filter, that must fail under it.
export interface Killer {
  readonly files: readonly string[];
  /** vitest -t: only the tests whose title matches. */
  readonly filter?: string;
}

export interface NamedMutation {
  readonly name: string;
  readonly file: string;
  /** Exact pieces of source and what each becomes. */
  readonly edits: readonly { readonly from: string; readonly to: string }[];
  /** Every one of these runs must fail with the mutation in place. */
  readonly killers: readonly Killer[];
}

const MATRIX: Killer = { files: ['test/sensitivity-matrix.test.ts'] };
const CHECKS: Killer = { files: ['test/checks.test.ts'] };

export const MUTATIONS: readonly NamedMutation[] = [
  // The five weak tests of issue 22 (the dotnet title and the update mode are not source mutations).
  {
    name: 'reference: every 200 JSON answer sent as text/html <html>not a record</html>',
    file: 'lib/reference/server.ts',
    edits: [{ from: "  const body = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;\n  // As a map first: a content-length the reply names keeps its place and takes the body's length.\n  const headers: Record<string, string> = { ...r.headers, 'content-length': String(body.length) };", to: "  const html = r.status === 200 && String(r.headers['content-type'] ?? '').startsWith('application/json');\n  const body = html ? Buffer.from('<html>not a record</html>') : typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;\n  const headers: Record<string, string> = { ...r.headers, ...(html ? { 'content-type': 'text/html' } : {}), 'content-length': String(body.length) };" }],
    killers: [{ files: ['test/reference-abuse.test.ts'], filter: 'generated requests' }],
  },
  {
    name: 'reference: every answer to HEAD sent as text/html',
    file: 'lib/reference/server.ts',
    edits: [{ from: "    res.writeHead(p.status, p.head as string[]);", to: "    const head: string[] = [];\n    for (let i = 0; i < p.head.length; i += 2) if (res.req?.method !== 'HEAD' || p.head[i] !== 'content-type') head.push(p.head[i]!, p.head[i + 1]!);\n    if (res.req?.method === 'HEAD') head.push('content-type', 'text/html');\n    res.writeHead(p.status, head);" }],
    killers: [{ files: ['test/reference-abuse.test.ts'], filter: 'generated requests' }],
  },
  {
    name: 'reference: a fault rate x1.25',
    file: 'lib/reference/population.ts',
    edits: [{ from: 'new Seeded(`fault:${key}`).next() < rate;', to: 'new Seeded(`fault:${key}`).next() < rate * 1.25;' }],
    killers: [
      { files: ['test/accounts.test.ts'], filter: 'a fault 5% of accounts see' },
      { files: ['test/differential.test.ts'], filter: 'a fault hitting a fraction of the accounts' },
    ],
  },
  {
    name: 'proxy: the judge thread keeps the process priority (setPriority removed)',
    file: 'lib/cli/proxy-judge.ts',
    edits: [{ from: "    setPriority(tid, 19);", to: "    void setPriority;" }],
    killers: [{ files: ['test/proxy.test.ts'], filter: 'judges on a thread of its own at nice 19' }],
  },
  {
    name: 'transport: the time limit starts before --rate lets the exchange go',
    file: 'lib/http/send.ts',
    edits: [
      { from: '  const taken = budget.take();', to: '  const queuedAt = Date.now();\n  const taken = budget.take();' },
      { from: '  const started = Date.now();', to: '  const started = queuedAt;' },
    ],
    killers: [{ files: ['test/rate-clock.test.ts'] }],
  },
  // One per check area, the redactor and the tally.
  {
    name: 'checks/json-types: a JSON value of the wrong type is never reported',
    file: 'lib/checks/json-types.ts', edits: [{ from: '        if (!why) continue;', to: '        continue;' }],
    killers: [MATRIX],
  },
  {
    name: 'checks/soap-types: a nil value type is never reported',
    file: 'lib/checks/soap-types.ts',
    edits: [{ from: 'if (isNil(s.element)) return isValueType(s.type) ?', to: 'if (isNil(s.element)) return false ?' }],
    // No fault of the matrix sends a nil value type over SOAP; the checks' own cases do.
    killers: [CHECKS],
  },
  {
    name: 'checks/whole-answer (routes): any status counts as the expected one',
    file: 'lib/checks/whole-answer.ts',
    edits: [{ from: "  const success = expected === 'success' ? status >= 200 && status < 300 : status === expected;", to: '  const success = true;' }],
    killers: [MATRIX],
  },
  {
    name: 'checks/soap-envelope: any root element passes as the SOAP 1.1 Envelope',
    file: 'lib/checks/soap-envelope.ts',
    edits: [{ from: '      if (env.name === SOAP.envelope && env.ns === SOAP11_ENVELOPE) return [];', to: '      return [];' }],
    killers: [MATRIX],
  },
  {
    name: 'checks/json-record: a missing or null value-type member is not reported',
    file: 'lib/checks/walk-json.ts',
    edits: [{ from: '(absent ??= []).push(m.field);', to: 'absent = undefined;' }],
    killers: [MATRIX],
  },
  {
    name: 'checks/soap-record: members out of ordinal order are not reported',
    file: 'lib/checks/soap-record.ts',
    edits: [{ from: '    if (ordinalCompare(a, b) >= 0) {', to: '    if (false) {' }],
    killers: [MATRIX],
  },
  {
    name: 'checks/requests: a JSON request of another media type passes',
    file: 'lib/checks/requests.ts',
    edits: [{ from: '      if (type !== JSON_MEDIA_TYPE) return [finding(', to: '      if (false) return [finding(' }],
    killers: [MATRIX],
  },
  {
    name: 'checks/format: a JSONP answer calling another function passes',
    file: 'lib/checks/format.ts',
    edits: [{ from: '      if (jsonp.value.callback !== asked) return', to: '      if (false) return' }],
    killers: [MATRIX],
  },
  {
    name: 'reporting/redact: personal data shown although not asked for',
    file: 'lib/reporting/redact.ts',
    edits: [{ from: "    return kind === 'credential' || (kind === 'personal' && !this.shared.policy.showPersonalData);", to: "    return kind === 'credential';" }],
    killers: [{ files: ['test/redact.test.ts'] }],
  },
  {
    name: 'reporting/redact: a secret header\'s value shown',
    file: 'lib/reporting/redact.ts',
    edits: [{ from: "    if (this.secretHeaderName(name)) return marker('secret header', value);", to: '' }],
    killers: [{ files: ['test/redact.test.ts'] }],
  },
  {
    name: 'reporting/redact: a marker written over the punctuation of a JSON text (a match across two strings)',
    file: 'lib/reporting/redact.ts',
    edits: [{ from: '    return replaceRanges(text, tokens ? fitted(text, tokens, kept) : kept,', to: '    return replaceRanges(text, kept,' }],
    killers: [{ files: ['test/redact-json-shape.test.ts'] }],
  },
  {
    name: 'engine/tally: an exchange with findings is not counted as failed',
    file: 'lib/engine/tally.ts',
    edits: [{ from: '    this.failed++;', to: '    this.failed += 0;' }],
    killers: [MATRIX],
  },
  {
    name: 'engine/tally: a repeated finding is not counted again in its group',
    file: 'lib/engine/tally.ts',
    edits: [{ from: '      if (g) g.count++;', to: '      if (g) g.count += 0;' }],
    killers: [{ files: ['test/tally.test.ts'] }],
  },
];
