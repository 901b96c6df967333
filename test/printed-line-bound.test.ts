// A failed check's line (the live console's per finding, a report's and the report console's) was
// cut to MAX_MESSAGE characters before display escaping: a message of characters the console shows
// escaped (U+202E as `\u202e`, 6 characters; a control as `\x1b`, 4) printed several times longer.
// The bound now holds on what is printed, the count of findings and the path after the message kept.
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { failLine } from '../lib/checks/fail-line.js';
import { findingLines } from '../lib/cli/live-judging.js';
import { consoleText, displayLine, shownMessage } from '../lib/reporting/display.js';
import { Redactor } from '../lib/reporting/redact.js';
import { MAX_MESSAGE, REPORT_LINE } from '../lib/reporting/report.js';

const printed = (s: string) => consoleText(displayLine(s));
/** Messages a target can make a check say: quoted values or bare text, of characters shown escaped. */
const MESSAGES = [
  `${JSON.stringify('\u202e'.repeat(150))} is not a member of SupportStateUserLoginRequest`,
  `unexpected ${'\u202e'.repeat(500)}`,
  `unexpected ${'\x1b\u0085'.repeat(300)} in the answer`,
  `"${'\u{e0041}'.repeat(100)}" is wrong ##[stop-commands]x ${'##[x]'.repeat(100)}`,
];

describe('a failed check\'s line within MAX_MESSAGE characters as printed', () => {
  it('shownMessage: each message printed within the bound', () => {
    for (const m of MESSAGES) expect(printed(shownMessage(m, MAX_MESSAGE)).length, displayLine(m.slice(0, 40))).toBeLessThanOrEqual(MAX_MESSAGE);
  });

  it('shownMessage: a message of 500 U+202E keeps its start and more than half the bound (was "…" alone)', () => {
    const shown = shownMessage(`unexpected ${'\u202e'.repeat(500)}`, MAX_MESSAGE);
    expect(shown).toMatch(/^unexpected \u202e+…$/);
    expect(printed(shown).length).toBeGreaterThan(MAX_MESSAGE / 2);
  });

  it('a report\'s line (REPORT_LINE): printed within the bound, its path and "(+2 more)" whole', () => {
    for (const message of MESSAGES) {
      const line = printed(failLine({ judged: 1, judgedProbes: 1, failed: 1, findings: 3, first: { exchange: 'login.post', message, path: '$.a\u202eb' } }, REPORT_LINE));
      expect(line.length, displayLine(message.slice(0, 40))).toBeLessThanOrEqual(MAX_MESSAGE);
      expect(line).toMatch(/^login\.post: .+ at \$\.a\\u202eb \(\+2 more\)$/);
    }
  });

  it('a live finding line: printed within the bound, its path whole', () => {
    const check = CATALOGUE.reduce((a, c) => (c.id.length + c.level.length > a.id.length + a.level.length ? c : a));
    const ex = {
      id: 'proxy.1', title: 'a client\'s', origin: { source: 'proxy' as const, vouched: false },
      request: { method: 'POST', url: 'http://judging.test/supportstateuser', headers: {} },
      startedAt: new Date(0).toISOString(), durationMs: 1,
    };
    const lines = findingLines(ex, [[check, MESSAGES.map((message) => ({ message, path: '$.a\u202eb' }))]], new Redactor({ showPersonalData: true, secrets: [] }), false);
    expect(lines).toHaveLength(MESSAGES.length);
    for (const l of lines) {
      expect(l.length, l.slice(0, 80)).toBeLessThanOrEqual(MAX_MESSAGE);
      expect(l).toMatch(new RegExp(`^✗ ${check.id} \\[${check.level}\\] proxy\\.1 POST /supportstateuser: .+ at \\$\\.a\\\\u202eb$`));
    }
  });
});
