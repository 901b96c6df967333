// Runs the whole catalogue against the reference under one variant (a fault or a style), over
// real HTTP, and renders the sensitivity matrix document from the outcomes.
import { CATALOGUE } from '../../lib/checks/catalogue.js';

/** The checks of answers (a faulty reference's answers can fail them); the request checks judge clients. */
export const ANSWER_CHECKS = CATALOGUE.filter((c) => c.side !== 'request');
export const REQUEST_CHECKS = CATALOGUE.filter((c) => c.side === 'request');

/** Clients sent to the judging reference, by name, with the request checks each failed. */
export interface ClientRows {
  readonly wrong: readonly { name: string; failed: readonly string[] }[];
  readonly legitimate: readonly { name: string; failed: readonly string[] }[];
}
import type { Level } from '../../lib/checks/check.js';
import { DEFAULT_NAMESPACES } from '../../lib/contract/namespaces.js';
import type { JsonObject } from '../../lib/json/value.js';
import { runConformance, type Verdict } from '../../lib/engine/run.js';
import type { Variant } from '../../lib/reference/profile.js';
import { startReference } from '../../lib/reference/server.js';
import type { Fault } from '../../lib/reference/variants.js';

export interface Outcome {
  readonly verdict: Verdict;
  readonly failed: Readonly<Record<Level, readonly string[]>>;
}

export async function outcomeUnder(variants: readonly Variant[], userDetails?: JsonObject): Promise<Outcome> {
  const ref = await startReference({ variants, ...(userDetails ? { userDetails } : {}) });
  try {
    const run = await runConformance({
      baseUrl: ref.url, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 30_000, maxBodyBytes: 10 * 1024 * 1024,
    });
    const failed = (level: Level) => run.results.filter((r) => r.status === 'fail' && r.check.level === level).map((r) => r.check.id);
    return { verdict: run.verdict, failed: { MUST: failed('MUST'), SHOULD: failed('SHOULD') } };
  } finally {
    await ref.close();
  }
}

/** Runs `task` on every item, at most `limit` at once. */
export async function inBatches<T, R>(items: readonly T[], limit: number, task: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += limit) out.push(...(await Promise.all(items.slice(i, i + limit).map(task))));
  return out;
}

const code = (ids: readonly string[]) => (ids.length ? ids.map((i) => `\`${i}\``).join(', ') : '—');

export function matrixMarkdown(
  faults: readonly Fault[], faultOutcomes: readonly Outcome[], styles: readonly Variant[], styleOutcomes: readonly Outcome[],
  inputDependent: readonly Fault[] = [], inputDependentOutcomes: readonly Outcome[] = [],
  clients?: ClientRows,
): string {
  const requestMust = REQUEST_CHECKS.filter((c) => c.level === 'MUST');
  const clientKillers = (id: string) => (clients?.wrong ?? []).filter((w) => w.failed.includes(id)).map((w) => w.name);
  // The answers of a faulty reference feed the checks of answers; the request checks judge clients (test/requests.test.ts).
  const must = ANSWER_CHECKS.filter((c) => c.level === 'MUST');
  const killers = (id: string) => faults.filter((_, i) => faultOutcomes[i]!.failed.MUST.includes(id)).map((f) => f.name);
  const killed = must.filter((c) => killers(c.id).length > 0).length;
  const falseAlarms = styleOutcomes.reduce((n, o) => n + o.failed.MUST.length + o.failed.SHOULD.length, 0);
  return [
    '# Sensitivity matrix',
    '',
    'Written by `test/sensitivity-matrix.test.ts` (part of `npm test`), which runs the whole catalogue',
    'over HTTP against the reference implementation with one named fault at a time, and with one',
    'legitimate style at a time. A fault must make the verdict non-conformant, fail every check it',
    'declares, and fail no other MUST check; a style must fail nothing. `npm run reference -- --list`',
    'lists them; `npm run reference -- --fault NAME` serves one.',
    '',
    `- MUST checks killed by at least one fault: **${killed} of ${must.length}** (${Math.round((100 * killed) / must.length)}%)`,
    `- Faults: ${faults.length}; every one non-conformant: **${faultOutcomes.every((o) => o.verdict === 'non-conformant') ? 'yes' : 'NO'}**`,
    `- Styles: ${styles.length}; failures across all styles (MUST and SHOULD): **${falseAlarms}**`,
    ...(inputDependent.length ? [`- Faults only generated requests trigger: ${inputDependent.length}, not in the tables below (see the last section)`] : []),
    '',
    '## Fault → failing checks',
    '',
    '| Fault | What it does | Failing MUST checks | Failing SHOULD checks |',
    '|---|---|---|---|',
    ...faults.map((f, i) => `| \`${f.name}\` | ${f.description} | ${code(faultOutcomes[i]!.failed.MUST)} | ${code(faultOutcomes[i]!.failed.SHOULD)} |`),
    '',
    '## MUST check → faults that kill it',
    '',
    '| Check | Clause | Killed by |',
    '|---|---|---|',
    ...must.map((c) => `| \`${c.id}\` | ${c.clause} | ${code(killers(c.id))} |`),
    '',
    '## Styles (each must fail nothing)',
    '',
    '| Style | What it does | Failing checks |',
    '|---|---|---|',
    ...styles.map((s, i) => `| \`${s.name}\` | ${s.description} | ${code([...styleOutcomes[i]!.failed.MUST, ...styleOutcomes[i]!.failed.SHOULD])} |`),
    '',
    ...(inputDependent.length ? [
      '## Faults only generated requests trigger',
      '',
      'These faults need an input the probes never send (an apostrophe in a name, a record with a date',
      'before 1900, a member left out). Under the probes alone they must fail nothing, which this test',
      'checks; `test/generated.test.ts` proves that `--generate` with the default number of requests finds',
      'each, fails exactly the checks it declares, and shrinks it to a minimal request.',
      '',
      '| Fault | What it does | Declared checks | Failing under the probes alone |',
      '|---|---|---|---|',
      ...inputDependent.map((f, i) => `| \`${f.name}\` | ${f.description} | ${code(f.breaks)} | ${code([...inputDependentOutcomes[i]!.failed.MUST, ...inputDependentOutcomes[i]!.failed.SHOULD])} |`),
      '',
    ] : []),
    ...(clients ? [
      '## Clients: wrong request → failing request checks',
      '',
      'The Requests checks judge what a client sends. Each request of `test/helpers/client-requests.ts` is',
      'sent over HTTP to the judging reference (`npm run reference -- --judge-clients`); a wrong one must',
      'fail exactly the checks its rule belongs to, a legitimate one none.',
      '',
      `- MUST request checks killed by at least one wrong client: **${requestMust.filter((c) => clientKillers(c.id).length).length} of ${requestMust.length}**`,
      `- Legitimate clients: ${clients.legitimate.length}; failures across them: **${clients.legitimate.reduce((n, l) => n + l.failed.length, 0)}**`,
      '',
      '| Wrong client | Failing request checks |',
      '|---|---|',
      ...clients.wrong.map((w) => `| ${w.name} | ${code(w.failed)} |`),
      '',
      '## MUST request check → wrong clients that kill it',
      '',
      '| Check | Clause | Killed by |',
      '|---|---|---|',
      ...requestMust.map((c) => `| \`${c.id}\` | ${c.clause} | ${clientKillers(c.id).join('; ') || '—'} |`),
      '',
      '| Legitimate client | Failing request checks |',
      '|---|---|',
      ...clients.legitimate.map((l) => `| ${l.name} | ${code(l.failed)} |`),
      '',
    ] : []),
  ].join('\n');
}
