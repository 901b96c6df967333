// Which runs cap their heap's growth (collect.ts): those that stream exchanges by the thousand.
import { describe, expect, it } from 'vitest';
import { streamsExchanges } from '../lib/engine/collect.js';

describe('streamsExchanges', () => {
  it('is true for an --accounts run and for a --generate run, alone or together', () => {
    expect(streamsExchanges({ accounts: 'cases.jsonl' })).toBe(true);
    expect(streamsExchanges({ generate: { count: 8000 } })).toBe(true);
    expect(streamsExchanges({ accounts: 'cases.jsonl', generate: { count: 1 } })).toBe(true);
  });
  it('is false for a run of the probes alone (nothing streams past)', () => {
    expect(streamsExchanges({})).toBe(false);
    expect(streamsExchanges({ accounts: undefined, generate: undefined })).toBe(false);
  });
});
