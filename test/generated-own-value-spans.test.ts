// The generator hands the redactor the values it wrote under sensitive names (Origin.ownValues: where
// they stand in the JSON text it wrote), so a generated request's text is not walked for them. Exact:
// the values read there are those the JSON walker (jsonRanges) finds in the text, cut anywhere (a
// malformed JSON body is a cut text; an output shows MAX_SHOWN_TEXT characters), under either policy.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { OPERATIONS } from '../lib/contract/operations.js';
import { sensitivityOfName } from '../lib/contract/sensitivity.js';
import type { Sensitivity } from '../lib/contract/types.js';
import { generateFor, jsonText, requestArbitrary } from '../lib/engine/generated-requests.js';
import { Generation } from '../lib/engine/generation.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import type { JsonValue } from '../lib/json/value.js';
import { responseText } from '../lib/reporting/exchange-text.js';
import { jsonRanges, tokenValue } from '../lib/reporting/json-ranges.js';
import { MAX_SHOWN_TEXT, Redactor } from '../lib/reporting/redact.js';

/** The walker's kind of a name under a policy, as the Redactor asks it. */
const kindOf = (showPersonalData: boolean) => (name: string): Sensitivity | undefined => {
  const k = sensitivityOfName(name);
  return k === 'credential' || (k === 'personal' && !showPersonalData) ? k : undefined;
};
const walked = (text: string, showPersonalData: boolean): string[] => jsonRanges(text, kindOf(showPersonalData)).flatMap((r) => r.values);
/** The values at `own` in `text` (which may end inside or before them), as the Redactor reads them. */
function handed(text: string, own: readonly number[], showPersonalData: boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < own.length && own[i]! < text.length; i += 3) {
    const v = own[i + 2] === 1 || !showPersonalData ? tokenValue(text, own[i]!, own[i + 1]!) : undefined;
    if (v !== undefined) out.push(v);
  }
  return out;
}

/** JSON values whose names are often sensitive ones (credential, personal, or neither), nested in
 *  each other, with strings that need escapes, numbers of every spelling and literals. */
const NAMES = ['password', 'userName', 'email', 'apiKey', 'displayName', 'recoveryToken', 'searchValues', 'x', 'Address', 'hasApiKey'];
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('', '"', '\\', '\n', '\u0000', '\ud800', 'x'.repeat(40)), fc.double(), fc.integer(), fc.constantFrom(-0, 1e21, 1.5e-7), fc.boolean(), fc.constant(null)),
    fc.array(tie('tree'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...NAMES), fc.string()), tie('tree'), { maxKeys: 5 })),
})) as { tree: fc.Arbitrary<JsonValue> };

describe('jsonText', () => {
  it('writes exactly what JSON.stringify writes, compact and indented', () => {
    fc.assert(fc.property(tree, fc.constantFrom(0 as const, 2 as const), (value, indent) => {
      const { text, ownValues } = jsonText(value, indent);
      expect(text).toBe(JSON.stringify(value, null, indent));
      expect(ownValues).toBeDefined();
    }), { numRuns: 2000 });
  });

  it('names, for any cut of its text, the values the JSON walker finds there, under either policy', () => {
    fc.assert(fc.property(tree, fc.constantFrom(0 as const, 2 as const), fc.nat(), fc.boolean(), (value, indent, cutAt, showPersonalData) => {
      const { text, ownValues = [] } = jsonText(value, indent);
      for (const cut of [text.length, cutAt % (text.length + 1)]) {
        const part = text.slice(0, cut);
        expect(handed(part, ownValues, showPersonalData)).toEqual(walked(part, showPersonalData));
      }
    }), { numRuns: 3000 });
  });

  it('at every cut of a text holding each kind of value under a sensitive name', () => {
    const { text, ownValues = [] } = jsonText({ a: 1, password: ['ab\\"c\u0001\ud83d\ude00', -12.5e-3, true, null, false, { userName: 'q' }], email: null, apiKey: 'x"' }, 0);
    for (let cut = 0; cut <= text.length; cut++) {
      for (const show of [false, true]) expect(handed(text.slice(0, cut), ownValues, show), `cut ${cut}`).toEqual(walked(text.slice(0, cut), show));
    }
  });
});

describe('a generated request\'s own values', () => {
  it('are, for every JSON body of three seeds, the values the JSON walker finds in what an output shows of it', () => {
    let bodies = 0;
    let values = 0;
    for (const seed of [1, 7, 123]) {
      for (const op of OPERATIONS) {
        for (const { value: r } of generateFor(op, DEFAULT_NAMESPACES, seed, 300)) {
          if (!r.ownValues) continue;
          bodies++;
          const part = r.body.slice(0, MAX_SHOWN_TEXT);
          for (const show of [false, true]) {
            const found = walked(part, show);
            expect(handed(part, r.ownValues, show), r.what).toEqual(found);
            values += found.length;
          }
        }
      }
    }
    // Most JSON bodies carry their values (the trailing-comma ones are walked), and there are values.
    expect(bodies).toBeGreaterThan(1500);
    expect(values).toBeGreaterThan(1000);
  });

  it('go with a generated request to the engine, and with each shrink candidate, exact there too', () => {
    const generation = new Generation({ count: 40, seed: 3 }, { namespaces: DEFAULT_NAMESPACES, extraHeaders: {} });
    // Every JSON body but a trailing comma's (walked: not the start of a text jsonText wrote); SOAP's are walked.
    const specs = [...generation.requests()];
    for (const s of specs) expect(s.origin.ownValues !== undefined, s.title).toBe(!s.body!.startsWith('<') && !s.body!.endsWith(',}'));
    expect(specs.filter((s) => s.origin.ownValues).length).toBeGreaterThan(60);
    let candidates = 0;
    for (const op of OPERATIONS) {
      const arb = requestArbitrary(op, DEFAULT_NAMESPACES);
      for (const v of generateFor(op, DEFAULT_NAMESPACES, 3, 40)) {
        for (const c of arb.shrink(v.value_, v.context).take(30)) {
          if (!c.value.ownValues) continue;
          candidates++;
          const part = c.value.body.slice(0, MAX_SHOWN_TEXT);
          expect(handed(part, c.value.ownValues, false), c.value.what).toEqual(walked(part, false));
        }
      }
    }
    expect(candidates).toBeGreaterThan(500);
  });

  const exchange = (ownValues: readonly number[] | undefined): Exchange => ({
    id: 'gen.login.1', title: 'generated', startedAt: new Date(0).toISOString(), durationMs: 1,
    origin: { source: 'generated', vouched: false, intent: 'valid', ...(ownValues ? { ownValues } : {}) },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: '{"userName":"Gen Value 7q"}' },
    response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from('{"userName":"Gen Value 7q"}')),
  });

  it('are read where the generator says they stand, not found by walking the body', () => {
    for (const [own, shown] of [[[12, 26, 0], true], [[], false]] as const) {
      const scope = new Redactor({ showPersonalData: false, secrets: [] }).scope();
      const ex = exchange(own);
      scope.learnExchange(ex);
      // Its own: the echo is shown as sent; handed none, the echo is a value the target sent.
      expect(responseText(ex, scope).includes('"Gen Value 7q"'), JSON.stringify(own)).toBe(shown);
    }
  });
});
