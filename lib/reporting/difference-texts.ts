// The words every output uses for a differential run's differences (console, JUnit, the vitest
// presentation). Types only are imported: the presentation child loads this without the engine.
import type { ReportedDiffExample, ReportedNoise, ReportedPathDifferences } from './differential.js';

/** One example of a difference, as every output shows it. */
export const exampleLine = (e: ReportedDiffExample): string =>
  `${e.request}${e.case !== undefined ? ` (case ${e.case})` : ''}: "${e.legacy}" → "${e.candidate}" (${e.how})`;
/** A differing path, in the words of the JUnit and vitest presentations. */
export const differsText = (p: ReportedPathDifferences): string =>
  `the candidate differs from the legacy on ${p.differing} of ${p.compared} pairs (${p.rate})`;
export const noiseText = (n: ReportedNoise): string =>
  `noise: the legacy's own two answers differed here on ${n.legacyVaried} of ${n.compared} requests (${n.rate}); the candidate differed ${n.candidateDiffered} time(s), not counted`;
export const NOT_COMPARED_TEXT = 'the legacy gave no answer to each of them, or answered it two ways (status, media type or record): nothing to compare with, or nothing says what is volatile in it';
