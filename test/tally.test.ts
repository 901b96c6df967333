// A check's tally over many exchanges: the same finding on many accounts is one group with its count
// (values masked), distinct findings are groups of their own, most frequent first.
import { describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { CheckTally } from '../lib/engine/tally.js';

const origin = (n: number) => ({ source: 'case' as const, vouched: true, case: n });
const dashed = (value: string) => [{ path: '$.enrollmentInfo.siteId', message: `"${value}" (a string): expected 32 hex digits without dashes`, actual: value }];

describe('CheckTally', () => {
  it('the same finding on three accounts (other values) is one group counted 3; another finding a group of 1 after it', () => {
    const t = new CheckTally(checkById.get('JSON-GUID')!);
    t.fold('case-1.login', origin(1), dashed('aaaa-1'));
    t.fold('case-2.login', origin(2), [{ path: '$.siteId', message: 'missing' }]);
    t.fold('case-3.login', origin(3), dashed('bbbb-2'));
    t.fold('case-4.login', origin(4), []);
    t.fold('case-5.login', origin(5), dashed('cccc-3'));
    expect([t.judged, t.failed, t.findings]).toEqual([5, 4, 4]);
    expect(t.findingGroups()).toEqual([
      { path: '$.enrollmentInfo.siteId', message: '"…" (a string): expected 32 hex digits without dashes', count: 3 },
      { path: '$.siteId', message: 'missing', count: 1 },
    ]);
  });

  it('groups a finding quoting a value of 9 M characters, and a path with a key as long, as any other (one pass, no stack overflow)', () => {
    const t = new CheckTally(checkById.get('JSON-INTEGER')!);
    const long = 'P'.repeat(9 * 1024 * 1024);
    t.fold('har.1', { source: 'har', vouched: false }, [{ path: `$.x["${long}"]`, message: `"${long}" (a string): expected an integer`, actual: long }]);
    expect(t.findingGroups()).toEqual([{ path: '$.x[*]', message: '"…" (a string): expected an integer', count: 1 }]);
  });
});
