// docs/checks.md: the catalogue as a table, generated from the code (`npm run docs`); a test
// fails when the committed file differs.
import { CATALOGUE, CATALOGUE_HASH } from './catalogue.js';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function checksMarkdown(): string {
  const lines = [
    '# Check catalogue',
    '',
    `Generated from \`lib/checks/\` by \`npm run docs\` (catalogue hash \`${CATALOGUE_HASH}\`). MUST checks decide the verdict;`,
    'SHOULD checks are reported and never fail it. "Interpretation" is where the spec is ambiguous and',
    'the check applies a stated reading.',
    '',
    'Each check judges every exchange of the kinds it names, however the exchange came into the run (a',
    'probe, an account, a recording, live traffic, a generated input); "needs" names the purpose-built',
    'request without which ordinary traffic leaves it "not observed".',
    '',
    'A generated request (`--generate`) is held to the route, format and record checks only when it is',
    'answered with success: a 200 answer carries a record and is judged as any other (MUST: a record is a',
    'record). Its error answers, 5xx and missing answers are never judged against the success contract:',
    'they are the Robustness checks\', all SHOULD because the spec shows no errors (7).',
    '',
    '| ID | Level | Clause | Area | Requirement | Judges | Interpretation |',
    '|---|---|---|---|---|---|---|',
    ...CATALOGUE.map((c) => `| \`${c.id}\` | ${c.level} | ${c.clause} | ${c.area} | ${cell(c.requirement)} | ${cell(c.judges)}${c.probe ? ` (needs ${cell(c.probe)})` : ''} | ${cell(c.interpretation ?? '')} |`),
    '',
    `${CATALOGUE.length} checks: ${CATALOGUE.filter((c) => c.level === 'MUST').length} MUST, ${CATALOGUE.filter((c) => c.level === 'SHOULD').length} SHOULD.`,
    '',
  ];
  return lines.join('\n');
}
