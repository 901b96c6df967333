// What the harness writes itself, and so never masks: the words of its checks, of its type names
// ("expected a string"), of the interface, of its own markers and of the header names it writes, and
// the values it sends when the configuration gives none (sample-userName, 0001-01-01T00:00:00.0000000;
// the probes' JSONP callback names). A value a target
// sends that is one of these words is hidden by name only (lib/reporting/redact.ts): found elsewhere,
// it is the harness's word, not the target's secret, and masking it would garble the report. Finding
// groups (lib/engine/tally.ts) likewise never mask these words as a received value.
import { CATALOGUE } from './catalogue.js';
import { exampleValue } from '../contract/examples.js';
import { OPERATIONS } from '../contract/operations.js';
import { PUBLIC_WORDS } from '../contract/sensitivity.js';
import type { Shape } from '../contract/types.js';
import { EXPECTED } from '../contract/values.js';

/** The words of a text as the Redactor tokenises it (redact.ts): lower case. */
const wordsIn = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];

const MARKER_WORDS = 'credential personal secret header string number boolean null object array undefined chars words withheld characters';

/** The callback name the probes ask for (a plain identifier: nothing to sanitise). */
export const CALLBACK_NAME = 'conformanceCallback';
/** A callback name no JavaScript-safe server may echo verbatim (a SHOULD check). */
export const UNSAFE_CALLBACK = 'alert(document.domain)//';
/** Names of the header fields the harness writes in its requests and replays (those of secret values
 *  among them): a target's value spelled as one would otherwise mask the harness's own header. */
const HEADER_NAMES = ['accept', 'accept-encoding', 'access-control-request-headers', 'access-control-request-method', 'authorization', 'connection', 'content-length', 'content-type', 'cookie', 'host', 'origin', 'proxy-authorization', 'soapaction', 'user-agent', 'x-api-key'];

/** Words of the texts the harness writes around a received value (a finding's message, a failed
 *  check's line, a finding group, a live line) that no catalogue text holds: "failed on 1 of 1
 *  exchanges; first: …" had "first" masked where a nickname was First. test/harness-words.test.ts
 *  reads every such text in lib/ and fails naming a word missing here. */
const MESSAGE_WORDS = `account against ambiguous applies apply area argument ask bad bb because beside bf catalogue clause
  comes coming could count decide declared decode did distinct docs ef encoded exceeded exchange exchanges expected fail failed
  failure fields finding findings first hash however id input instead judges kind kinds leaves left lib live lone merged more needs
  neither nor npm observed offset once ordinary out passed past purpose puts reached recorded recorder recording report reports
  requirement run starts still surrogate tell there they traffic was week went whole`;

export const HARNESS_WORDS: ReadonlySet<string> = (() => {
  const w = new Set<string>(PUBLIC_WORDS);
  // Numbers are data more often than words: a learned number stays masked even where the harness writes it.
  const add = (text: string) => { for (const word of wordsIn(text)) if (!/^\d+$/.test(word)) w.add(word); };
  add(MARKER_WORDS);
  add(MESSAGE_WORDS);
  add(`${CALLBACK_NAME} ${UNSAFE_CALLBACK}`);
  for (const name of HEADER_NAMES) { add(name); w.add(name); }
  for (const e of Object.values(EXPECTED)) add(e);
  for (const c of CATALOGUE) for (const v of Object.values(c)) if (typeof v === 'string') add(v);
  return w;
})();

/** The request values the harness sends when none is configured, lower case. */
export const HARNESS_VALUES: ReadonlySet<string> = (() => {
  const values = new Set<string>();
  const walk = (shape: Shape) => {
    for (const f of shape.fields) {
      const v = exampleValue(f);
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') values.add(String(v).toLowerCase());
      if (f.type.kind === 'object') walk(f.type.shape);
    }
  };
  for (const op of OPERATIONS) walk(op.request);
  // The probes' callback names: values the harness sends in a query.
  values.add(CALLBACK_NAME.toLowerCase());
  values.add(UNSAFE_CALLBACK.toLowerCase());
  values.add('document.domain');
  values.delete('');
  return values;
})();
