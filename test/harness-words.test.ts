// The harness's words are never masked (lib/checks/harness-words.ts): every word of every text it
// writes around a received value is one. Read from the sources, so a new message's word cannot be
// forgotten: a personal value equal to it ("First", "More") had masked it in every failed check's line.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { HARNESS_VALUES, HARNESS_WORDS } from '../lib/checks/harness-words.js';
import { failLine } from '../lib/checks/fail-line.js';
import { Redactor } from '../lib/reporting/redact.js';
import { fromRoot } from '../lib/paths.js';

/** Where the texts around a received value are written: finding messages and a failed check's line
 *  (lib/checks), finding groups and the engine's check lines, the live lines. */
const SOURCES = ['lib/checks', 'lib/engine/tally.ts', 'lib/engine/run.ts', 'lib/cli/live-judging.ts'];

const filesOf = (path: string): string[] => statSync(fromRoot(path)).isFile() ? [fromRoot(path)]
  : readdirSync(fromRoot(path), { recursive: true }).map(String).filter((f) => f.endsWith('.ts')).map((f) => join(fromRoot(path), f));

/** The words of every prose literal (one holding a space; a template's parts when the template
 *  does) of a source file, lower case, numbers left out. */
function proseWords(file: string): Set<string> {
  const words = new Set<string>();
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (n: ts.Node): void => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) {
      const template = ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) ? undefined : ts.isTemplateHead(n) ? n.parent : n.parent.parent;
      const prose = (template ? template.getText() : n.text).includes(' ');
      if (prose && !ts.isImportDeclaration(n.parent) && !ts.isExportDeclaration(n.parent)) {
        for (const w of n.text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) if (!/^\d+$/.test(w)) words.add(w);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return words;
}

describe('the harness\'s message words', () => {
  it('every word of a text written around a received value is a harness word', () => {
    const words = new Set(SOURCES.flatMap(filesOf).flatMap((f) => [...proseWords(f)]));
    // The read finds the texts: the fail line's own words are among them.
    for (const w of ['failed', 'exchanges', 'first', 'more']) expect(words).toContain(w);
    expect([...words].filter((w) => !HARNESS_WORDS.has(w) && !HARNESS_VALUES.has(w)).sort()).toEqual([]);
  });

  it('a failed check\'s line keeps its words where personal values of the run are those words', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    r.learn(JSON.stringify({ nickname: 'First', lastName: 'More', city: 'Exchanges', state: 'Failed' }));
    const line = failLine({ judged: 3, judgedProbes: 1, failed: 2, findings: 3, first: { exchange: 'har.1', message: '"1.5" (a number): expected an integer', path: '$.userId' } });
    expect(line).toBe('failed on 2 of 3 exchanges (66.67%); first: har.1: "1.5" (a number): expected an integer at $.userId (+2 more)');
    expect(r.line(line)).toBe(line);
    // The personal values themselves stay masked where the answer puts them.
    expect(r.text('{"nickname":"First"}')).toBe('{"nickname":"«personal: string, 5 chars»"}');
  });
});
