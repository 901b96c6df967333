// `npm run test:mutants` applies each named mutation (test/mutants/named-mutations.ts) as an exact
// piece of source, and stops on one that no longer occurs exactly once. Changes to the sources made
// four of them stale unnoticed, since that run is not part of `npm test`; this keeps them current
// in every `npm test` (whether each is killed is test:mutants's own run).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MUTATIONS } from './mutants/named-mutations.js';

describe('named source mutations', () => {
  it('each edit names a piece of source that occurs exactly once in its file', () => {
    expect(MUTATIONS.length).toBeGreaterThanOrEqual(17);
    const stale = MUTATIONS.flatMap((m) => {
      const source = readFileSync(new URL(`../${m.file}`, import.meta.url), 'utf8');
      return m.edits.filter((e) => source.split(e.from).length !== 2).map(() => m.name);
    });
    expect(stale).toEqual([]);
  });
});
