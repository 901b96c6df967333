// One verdict in every output (issue 26): the words each output states and the exit code they mean,
// read the same way by every test that holds a run to it (verdict-modes, differential-cli,
// report-verdict-screen).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

/** The verdict as each output states it, and what summary.json says the exit code is. */
export function verdictsIn(dir: string, printed: string, html: boolean) {
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { verdictWords: string; exitCode: number };
  return {
    console: /^Verdict: (.+?) \((?:MUST|no MUST|no SHOULD|judged)/m.exec(printed)?.[1],
    summary: summary.verdictWords,
    junit: /<testsuites name="conformance: ([^"]+)"/.exec(readFileSync(join(dir, 'junit.xml'), 'utf8'))?.[1],
    traceability: /^Verdict \*\*(.+?)\*\*/m.exec(readFileSync(join(dir, 'traceability.md'), 'utf8'))?.[1],
    // The target may hold spaces ("recording x.har"); the words are capitals, commas and a count.
    ...(html ? { html: /<title>\s*Conformance of .*: ([A-Z][A-Z0-9 ,]+(?: \(\d+ values?\))?) \(\d{4}-/.exec(readFileSync(join(dir, 'report.html'), 'utf8'))?.[1] } : {}),
    exitCode: summary.exitCode,
  };
}

/** The exit code a verdict's words mean (traffic forwarded unjudged, and a live run in progress, are
 *  said in them and change none). */
export const meaning = (words: string): number => {
  const w = words.replace(/, \d+ OF \d+ EXCHANGES? NOT JUDGED/, '').replace(/, IN PROGRESS, \d+ EXCHANGES? JUDGED SO FAR/, '');
  const judged = w.replace(/, DIFFERS FROM LEGACY \(\d+ values?\)$/, '');
  return judged === 'NOT CONFORMANT' || (judged === 'CONFORMANT' && judged !== w) ? 1 : w === 'CONFORMANT' ? 0 : 2;
};

/** Asserts the one verdict everywhere, its meaning the exit code, and the words expected. `html`:
 *  report.html was written too. */
export function expectOneVerdict(dir: string, printed: string, code: number, words: string, html = true) {
  expect(verdictsIn(dir, printed, html)).toEqual({ console: words, summary: words, junit: words, traceability: words, ...(html ? { html: words } : {}), exitCode: code });
  expect(meaning(words)).toBe(code);
}
