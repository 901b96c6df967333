// The differential run: every request goes to the legacy deployment, then the candidate, then the
// legacy again. Both deployments are judged for conformance as usual (each by its own Judge); each
// pair of answers is compared value by value at every contract path (canonical.ts). What differs
// between the legacy's own two answers to a request is volatile there (a token, an expiry): at that
// path and below, a candidate's difference is noise, not a difference. Memory stays bounded: per
// operation and path, counts and at most MAX_DIFF_EXAMPLES examples, and the exchanges (their heads)
// of its first example, which replay.sh sends again; the answers are dropped once compared. Each
// request's comparison and judgements are folded in the order the requests were sent, whatever order
// the answers came in, so a report's examples are the same on every run of the same input.
import { ExchangeView, type CheckSettings } from '../checks/exchange-view.js';
import { checksFor } from '../checks/catalogue.js';
import type { EvidenceSource } from '../checks/check.js';
import { classify } from '../contract/classify.js';
import { SOAP } from '../contract/namespaces.js';
import { JAVASCRIPT_MEDIA_TYPES } from '../contract/operations.js';
import { objectOf, type Shape } from '../contract/types.js';
import type { Operation } from '../contract/operations.js';
import { exchangeHeaders, fieldsOf, PAST_LATIN1, type Exchange, type ExchangeSpec } from '../http/exchange.js';
import { mediaType } from '../http/media-type.js';
import { BodySlots, createDispatcher, RequestBudget, send, type SendBudget } from '../http/send.js';
import { ROOT } from '../json/path.js';
import { elementChildren } from '../xml/model.js';
import { collectGarbage, LARGE_BODY_BYTES } from './collect.js';
import { compareCanon, isAtOrBelow, jsonObject, xmlObject, type Canon, type ValueDifference } from './canonical.js';
import { planProbes } from './probes.js';
import { DEFAULT_CONCURRENCY, foldedPart, FoldOrder, Judge, keepHead, pump, runResultOf, untilStopped, type Judgement, type RunOptions, type RunResult, type Source } from './run.js';

/** Examples kept per operation and path. */
export const MAX_DIFF_EXAMPLES = 5;

/** Paths of what is compared besides the record's values. */
export const HTTP_PATHS = { status: 'HTTP status', mediaType: 'Content-Type', callback: 'JSONP callback', record: 'record' } as const;

export interface DiffExample {
  /** The request's id ("login.post", "case-17.login") and its account, when it has one. */
  readonly request: string;
  readonly case?: number;
  readonly legacy: string;
  readonly candidate: string;
  readonly how: string;
  readonly sensitivity?: ValueDifference['sensitivity'];
  /** The values as JSON values of their types, for markers (ValueDifference); left out when the
   *  values were shown already (`shown`). */
  readonly legacyTyped?: unknown;
  readonly candidateTyped?: unknown;
  /** Set when `legacy` and `candidate` are already as shown: redacted by the run's ExampleShow, then
   *  cut at the display bound (only that much is kept of a value of megabytes). */
  readonly shown?: true;
}

/** How the run shows one value of an example: its redactor's value layer (the field's sensitivity
 *  makes a marker of the typed value), then the display bound (reporting/display.ts). */
export type ExampleShow = (value: string, sensitivity: ValueDifference['sensitivity'], typed: unknown) => string;

export interface PathDifferences {
  readonly path: string;
  /** Pairs (legacy, candidate) that differ here beyond noise. */
  differing: number;
  readonly examples: DiffExample[];
  /** The ids of the exchanges of its first example, kept in the candidate's run result (replay.sh
   *  sends the request to both again). */
  shownBy?: DiffExchanges;
}

/** The exchanges that showed a difference: the request as the legacy got it first, and as the candidate got it. */
export interface DiffExchanges { readonly legacy: string; readonly candidate: string }

/** The id of the kept exchange of a request sent to the legacy (the candidate's keeps the request's). */
export const legacyExchangeId = (id: string): string => `${id}.legacy`;

export interface PathNoise {
  readonly path: string;
  /** Requests whose two legacy answers differed here (or the contract marks the field volatile). */
  legacyVaried: number;
  /** Candidate answers that differed here and were counted as noise. */
  candidateDiffered: number;
}

export interface OperationDifferences {
  readonly operation: string;
  /** Requests whose three answers were compared. */
  compared: number;
  /** Requests not compared: the legacy's own two answers differed in status, media type or in
   *  carrying a record, or it gave neither (a legacy that failed one of them says nothing of the candidate). */
  inconclusive: number;
  readonly paths: Map<string, PathDifferences>;
  readonly noise: Map<string, PathNoise>;
}

export interface DifferentialResult {
  readonly candidate: RunResult;
  readonly legacy: RunResult;
  readonly operations: readonly OperationDifferences[];
  /** Requests compared, and differing pairs summed over every path. */
  readonly compared: number;
  readonly differences: number;
  /** Requests not compared (OperationDifferences.inconclusive), summed. */
  readonly inconclusive: number;
}

export interface DifferentialOptions extends RunOptions {
  /** The legacy deployment; `baseUrl` is the candidate (the run's target). */
  readonly legacyUrl: string;
  /** Examples are kept as shown (redacted, then cut at the display bound) rather than whole. */
  readonly show?: ExampleShow;
}

/** Media types by meaning: the JSON aliases, the JavaScript types of JSONP, the XML types. */
const MEANINGS: readonly [string, readonly string[]][] = [
  ['JSON', ['application/json', 'text/json']],
  ['JavaScript', JAVASCRIPT_MEDIA_TYPES],
  ['XML', ['application/xml', 'text/xml']],
];
export const mediaMeaning = (header: string | undefined): string => {
  const type = mediaType(header);
  if (type === undefined) return 'none';
  return MEANINGS.find(([, types]) => types.includes(type))?.[0] ?? (type.endsWith('+json') ? 'JSON' : type.endsWith('+xml') ? 'XML' : type);
};

/** Fields the contract marks volatile, as contract paths (none today: see Field.volatile). */
function volatilePaths(shape: Shape, prefix = '', into: string[] = []): string[] {
  for (const f of shape.fields) {
    const path = prefix ? `${prefix}.${f.json}` : f.json;
    if (f.volatile) into.push(path);
    const t = f.type;
    if (t.kind === 'object') volatilePaths(t.shape, path, into);
    if (t.kind === 'array' && t.item.kind === 'object') volatilePaths(t.item.shape, `${path}[]`, into);
    if (t.kind === 'map') volatilePaths(t.value, `${path}{}`, into);
  }
  return into;
}

/** One answer as compared: what the HTTP layer says, and the record when the body is one. */
export interface Answer {
  readonly status: string;
  readonly media: string;
  readonly callback?: string;
  /** The record (only of 200 answers to POSTs), or why the body is not one. */
  readonly record?: Canon;
  readonly notRecord?: string;
}

/** The status of an exchange that got no answer: refused, reset, silent past --timeout, not sent. */
const NO_ANSWER = 'no answer';

/** What an answer means, decoded once; error and OPTIONS bodies are not compared (the spec gives
 *  no error body, and OPTIONS answers are free in form: 4.4). */
export function answerOf(view: ExchangeView): Answer {
  const r = view.response();
  if (!r.ok) return { status: NO_ANSWER, media: 'none' };
  // An OPTIONS answer is compared by its status class only: the spec leaves what it returns open
  // (4.4), so 200 with CORS headers and 204 with Allow are the same answer.
  if (view.kind.method === 'OPTIONS') return { status: `${String(r.value.status).charAt(0)}xx`, media: 'not compared' };
  const status = String(r.value.status);
  const media = mediaMeaning(r.value.headers['content-type']);
  const shape = view.kind.operation?.response;
  if (r.value.status !== 200 || view.kind.method !== 'POST' || !shape) return { status, media };
  const jsonp = view.kind.jsonp ? view.jsonp() : undefined;
  const callback = jsonp?.ok ? jsonp.value.callback : undefined;
  const withCallback = callback !== undefined ? { callback } : {};
  if (media === 'XML') {
    const doc = view.xml();
    if (!doc.ok) return { status, media, notRecord: doc.reason };
    const body = doc.value.name === SOAP.envelope ? elementChildren(doc.value).find((e) => e.name === SOAP.body) : undefined;
    const record = body ? elementChildren(body).find((e) => e.name === shape.name) : doc.value.name === shape.name ? doc.value : undefined;
    return record ? { status, media, record: xmlObject(shape, record) } : { status, media, notRecord: `no ${shape.name} element` };
  }
  const json = view.jsonRecord();
  return json.ok ? { status, media, ...withCallback, record: jsonObject(shape, json.value.root, { numbers: json.value.json.numbers, path: ROOT }) } : { status, media, ...withCallback, notRecord: json.reason };
}

/** Every path at which two answers to the same request differ. */
export function compareAnswers(shape: Shape | undefined, a: Answer, b: Answer): ValueDifference[] {
  const out: ValueDifference[] = [];
  // What the HTTP layer says is its own form: a status, a media type, a name.
  const said = (path: string, how: string, legacy: string, candidate: string): ValueDifference =>
    ({ path, how, legacy, candidate, legacyForm: legacy, candidateForm: candidate, legacyTyped: legacy, candidateTyped: candidate });
  const scalar = (path: string, x: string | undefined, y: string | undefined, how: string) => {
    if (x !== y) out.push(said(path, how, x ?? 'none', y ?? 'none'));
  };
  scalar(HTTP_PATHS.status, a.status, b.status, `${a.status} → ${b.status}`);
  scalar(HTTP_PATHS.mediaType, a.media, b.media, `${a.media} → ${b.media}`);
  // The callback is read of a 200 answer only (answerOf): beside another status, "none" is no name it wrote.
  if (a.status === '200' && b.status === '200') scalar(HTTP_PATHS.callback, a.callback, b.callback, 'another callback name');
  if (!shape) return out;
  if (a.record && b.record) compareCanon(objectOf(shape), a.record, b.record, '', out);
  else if ((a.record === undefined) !== (b.record === undefined) && (a.notRecord ?? b.notRecord) !== undefined) {
    out.push(said(HTTP_PATHS.record, a.record ? 'a record → not a record' : 'not a record → a record', a.notRecord ?? 'a record', b.notRecord ?? 'a record'));
  }
  return out;
}

/** One request's three answers compared (DifferenceTally.compare), before it is folded. */
export interface Comparison {
  readonly operation: string;
  readonly request: string;
  readonly case?: number;
  /** The legacy's two answers differed at the HTTP level, or it gave none: counted, not compared. */
  readonly inconclusive: boolean;
  /** Paths where the legacy's own two answers differed (or the contract marks volatile). */
  readonly varied: readonly string[];
  /** The varied path of each difference of the candidate's counted as noise. */
  readonly noise: readonly string[];
  /** The candidate's differences beyond noise, in the order compareAnswers gives them. */
  readonly differences: readonly ValueDifference[];
}

/** The folded differences of a run: per operation and path, counts and a few examples. */
export class DifferenceTally {
  private readonly byOperation = new Map<string, OperationDifferences>();
  private readonly volatile = new Map<Shape, string[]>();

  /** `show`: keep each example's values as shown, never whole (a legacy's value may be megabytes). */
  constructor(private readonly show?: ExampleShow) {}

  /** Compares one request's three answers (legacy, candidate, legacy again). */
  add(spec: ExchangeSpec, first: ExchangeView, candidate: ExchangeView, second: ExchangeView): void {
    this.addAnswers(spec, first.kind.operation, answerOf(first), answerOf(candidate), answerOf(second));
  }

  /** The same, from the answers as compared (answerOf), so that a caller need not hold three
   *  answers' texts and trees at once. `op`: the request's operation. Returns the paths whose first
   *  difference this request is: the caller keeps its exchanges for them (shownBy). */
  addAnswers(spec: ExchangeSpec, op: Operation | undefined, a: Answer, b: Answer, a2: Answer): PathDifferences[] {
    return this.fold(this.compare(spec, op, a, b, a2));
  }

  /** What one request's three answers say, not yet folded: it reads those answers alone, so it may
   *  be made as they come and folded (fold) in the order the requests were sent. */
  compare(spec: ExchangeSpec, op: Operation | undefined, a: Answer, b: Answer, a2: Answer): Comparison {
    const operation = op?.name ?? 'not this interface';
    const request = { request: spec.id, ...(spec.origin.case !== undefined ? { case: spec.origin.case } : {}) };
    const shape = op?.response;
    // A legacy that answered this request two ways at the HTTP level (a 503, a reset, an error page
    // once) cannot say what is volatile in it: the request is counted, not compared. Nor can one that
    // did not answer (refused, reset, silent past --timeout): it is not under test, and its silence is
    // no answer to differ from. A candidate silent where the legacy answered does differ (and fails its
    // route checks, as a target that never answers does in a run without the legacy).
    if (a.status === NO_ANSWER || a.status !== a2.status || a.media !== a2.media || (a.record === undefined) !== (a2.record === undefined)) {
      return { operation, ...request, inconclusive: true, varied: [], noise: [], differences: [] };
    }
    // Where the legacy's own answers differ, and in which forms (absent, empty, text, …) its values came.
    const forms = new Map<string, Set<string>>();
    for (const d of compareAnswers(shape, a, a2)) forms.set(d.path, (forms.get(d.path) ?? new Set()).add(d.legacyForm).add(d.candidateForm));
    const volatile = shape ? this.volatileOf(shape) : [];
    const varied = [...forms.keys(), ...volatile.filter((v) => !forms.has(v))];
    const noise: string[] = [];
    const differences: ValueDifference[] = [];
    for (const d of compareAnswers(shape, a, b)) {
      // Noise only in a form the legacy itself showed there: a token that changes is noise, a token
      // the candidate drops, empties or writes as another type is a difference. (A field the contract
      // marks volatile keeps the legacy's form.) Below a varied path (an item of a list that varied),
      // a difference is the path's noise.
      const noisy = varied.find((v) => isAtOrBelow(d.path, v));
      const sameForm = noisy !== undefined && (d.path !== noisy || (forms.get(noisy) ?? new Set([d.legacyForm])).has(d.candidateForm));
      if (noisy !== undefined && sameForm) noise.push(noisy);
      else differences.push(d);
    }
    return { operation, ...request, inconclusive: false, varied, noise, differences };
  }

  /** Folds one request's comparison into the counts and examples: called in the order the requests
   *  were sent, so that which are the examples (the first differences at each path) and the order of
   *  the paths are those of the input, whatever order the answers came in. Returns the paths whose
   *  first difference this request is. */
  fold(c: Comparison): PathDifferences[] {
    const first: PathDifferences[] = [];
    let tally = this.byOperation.get(c.operation);
    if (!tally) this.byOperation.set(c.operation, (tally = { operation: c.operation, compared: 0, inconclusive: 0, paths: new Map(), noise: new Map() }));
    if (c.inconclusive) { tally.inconclusive++; return first; }
    tally.compared++;
    for (const path of c.varied) this.noiseAt(tally, path).legacyVaried++;
    for (const path of c.noise) this.noiseAt(tally, path).candidateDiffered++;
    for (const d of c.differences) {
      let at = tally.paths.get(d.path);
      if (!at) {
        tally.paths.set(d.path, (at = { path: d.path, differing: 0, examples: [] }));
        first.push(at);
      }
      at.differing++;
      if (at.examples.length < MAX_DIFF_EXAMPLES) {
        const show = this.show;
        const values = show
          ? { legacy: show(d.legacy, d.sensitivity, d.legacyTyped), candidate: show(d.candidate, d.sensitivity, d.candidateTyped), shown: true as const }
          : { legacy: d.legacy, candidate: d.candidate, legacyTyped: d.legacyTyped, candidateTyped: d.candidateTyped };
        at.examples.push({
          request: c.request, ...(c.case !== undefined ? { case: c.case } : {}),
          ...values, how: d.how, ...(d.sensitivity ? { sensitivity: d.sensitivity } : {}),
        });
      }
    }
    return first;
  }

  private volatileOf(shape: Shape): string[] {
    let paths = this.volatile.get(shape);
    if (!paths) this.volatile.set(shape, (paths = volatilePaths(shape)));
    return paths;
  }

  private noiseAt(tally: OperationDifferences, path: string): PathNoise {
    let n = tally.noise.get(path);
    if (!n) tally.noise.set(path, (n = { path, legacyVaried: 0, candidateDiffered: 0 }));
    return n;
  }

  operations(): OperationDifferences[] {
    return [...this.byOperation.values()];
  }
}

/** Headers a replay never copies: the transport sets them per connection (and the harness never asks
 *  for a content coding). */
const NOT_REPLAYED = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'accept-encoding', 'te', 'upgrade', 'expect']);

/** How a replayed request that recorded `Expect: 100-continue` differs: undici refuses to send an
 *  Expect, so the body goes at once, as a server answering 100 would have it come. */
export const EXPECT_LEFT_OUT = 'without its Expect: 100-continue (the harness\'s HTTP client sends none)';

/** Recorded exchanges (a HAR's entries) as requests to send again, to both deployments: only those of
 *  this interface (others are not the candidate's to answer), at the same route under each base URL,
 *  with the recorded header fields as recorded (names as spelled, in order, repeats apart) where the
 *  recording has them, else its map; the run's own --header values win, sent after them. Their
 *  answers as recorded are not used.
 *  One whose body the recording does not hold (not recorded, past the body cap, as text naming no
 *  bytes: loneSurrogateAt, or of another length than its Content-Length: otherLength) is not sent, which would send another request: `notSent` hears of it, and
 *  why; as of one whose header field holds a character past U+00FF (PAST_LATIN1) or an Expect other
 *  than 100-continue. `Expect: 100-continue` is left out (undici sends no Expect): `changed` hears of
 *  it, and its title says so. */
export async function* replayed(recorded: AsyncIterable<Exchange>, extraHeaders: Readonly<Record<string, string>>, notSent: (ex: Exchange, why: string) => void = () => undefined, changed: (ex: Exchange, how: string) => void = () => undefined): AsyncGenerator<ExchangeSpec> {
  for await (const ex of recorded) {
    const kind = classify(ex.request);
    if (!kind.operation) continue;
    const missing = ex.request.bodyNotRecorded ? 'its request body was not recorded (its Content-Length or Transfer-Encoding says one was sent)'
      : ex.request.bodyLeftOut ? 'its request body went past the body cap and was left out'
      : ex.request.bodyUnfinished ? 'its request body was still coming when its answer was whole, and was not recorded'
      : ex.request.loneSurrogateAt !== undefined ? `its request body was recorded holding a lone surrogate at character ${ex.request.loneSurrogateAt}, which names no bytes: what was sent is not known`
      : ex.request.otherLength !== undefined && ex.request.body !== undefined ? `its request body was recorded as ${Buffer.byteLength(ex.request.body)} bytes, where its Content-Length says ${ex.request.otherLength} were sent: not the bytes sent` : undefined;
    if (missing) { notSent(ex, missing); continue; }
    let path: string;
    try { const u = new URL(ex.request.url); path = `${u.pathname.slice(kind.basePath?.length ?? 0)}${u.search}`; } catch { continue; }
    const raw = ex.request.rawHeaders;
    const recordedFields = raw ? fieldsOf(raw) : Object.entries(ex.request.headers);
    const expect = recordedFields.filter(([name]) => name.toLowerCase() === 'expect').map(([, value]) => value.trim().toLowerCase());
    if (expect.some((v) => v !== '100-continue')) { notSent(ex, 'its Expect header asks for other than 100-continue, which the harness\'s HTTP client (undici) cannot send: without it the request is another'); continue; }
    // A field a --header replaces is left out (the --header names are lower-case: config.ts).
    const fields = raw && [...recordedFields.filter(([name]) => !NOT_REPLAYED.has(name.toLowerCase()) && !Object.hasOwn(extraHeaders, name.toLowerCase())), ...Object.entries(extraHeaders)];
    const headers = fields ? exchangeHeaders(fields) : { ...Object.fromEntries(Object.entries(ex.request.headers).filter(([name]) => !NOT_REPLAYED.has(name))), ...extraHeaders };
    const unsendable = (fields ?? Object.entries(headers)).find(([name, value]) => PAST_LATIN1.test(name) || PAST_LATIN1.test(value));
    if (unsendable) { notSent(ex, `its header ${JSON.stringify(unsendable[0].slice(0, 40))} holds a character past U+00FF, which names no byte (a HAR's header value is the bytes sent read as Latin-1, as browsers record it): what was sent is not known`); continue; }
    if (expect.length) changed(ex, EXPECT_LEFT_OUT);
    yield {
      id: ex.id, title: `${ex.title}, replayed${expect.length ? ` ${EXPECT_LEFT_OUT}` : ''}`, origin: ex.origin, method: ex.request.method, path, headers,
      ...(fields ? { fields } : {}), ...(ex.request.body !== undefined ? { body: ex.request.body } : {}),
    };
  }
}

/** The large-body slot of one triple (legacy, candidate, legacy again): taken by the first of its
 *  exchanges to read past the free bytes, shared by the others, given back when the triple ends. A
 *  holder never waits for another's slot, so this cannot deadlock. */
class TripleSlots extends BodySlots {
  private held = false;
  constructor(private readonly shared: BodySlots) { super(0); }
  override async acquire(): Promise<void> {
    if (this.held) return;
    await this.shared.acquire();
    this.held = true;
  }
  override release(): void { /* kept until end() */ }
  end(): void {
    if (this.held) { this.held = false; this.shared.release(); }
  }
}

/** One answer as kept until its triple is folded: the exchange (its head) and, for a judged one, the
 *  judgement its judge folds. */
interface Judged { readonly ex: Exchange; readonly judgement?: Judgement }
/** One triple, its answers compared and judged, waiting to be folded in its turn: the legacy's first
 *  exchange and the candidate's, and the comparison (neither legacy nor comparison for a request the
 *  cap left unsent). */
interface Compared { readonly legacy?: Judged; readonly candidate: Judged; readonly comparison?: Comparison }

/** Runs the probes (and the cases) against both deployments, judges each, and compares. */
export async function runDifferential(options: DifferentialOptions): Promise<DifferentialResult> {
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const sources = new Set<EvidenceSource>(['probe', ...(options.cases ? ['case' as const] : [])]);
  const checks = options.checks ?? checksFor(sources);
  const settings: CheckSettings = { namespaces: options.namespaces };
  const judges = { candidate: new Judge(checks, settings, options.observe), legacy: new Judge(checks, settings, options.observe) };
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const dispatcher = options.dispatcher ?? createDispatcher({ ...options, connections: options.connections ?? concurrency });
  const budget = new RequestBudget(options.maxRequests, options.ratePerSecond);
  // One triple at a time holds large bodies (three of them: about what two exchanges hold in a run).
  const slots = new BodySlots(1);
  const differences = new DifferenceTally(options.show);
  const probes = options.probes === false ? [] : planProbes(options);
  /** Exchanges kept to replay a difference (the first example's of each path), beyond those the
   *  candidate's judge keeps: bounded by the paths there are. */
  const shown: Exchange[] = [];
  /** Set when the stop left requests unsent. */
  let cut = false;
  /** Sends one request to `url`, judges the answer (by `judge`, when given: its judgement, not yet
   *  folded) and keeps only its compared form (one view of it, so its body is parsed once, and
   *  dropped on return) and the exchange's head (keepHead: a large body's head only), should it show
   *  a difference or a finding. */
  const answer = async (spec: ExchangeSpec, url: string, held: TripleSlots, portion: SendBudget, judge?: Judge, toLegacy = false): Promise<[Answer, Operation | undefined, boolean, Judged]> => {
    const sent = await send(spec, url, { dispatcher, options, budget: portion, slots: held });
    // The legacy's exchange has an id of its own: its findings name it, not the candidate's.
    const ex = toLegacy ? { ...sent, id: legacyExchangeId(spec.id), title: `${sent.title}, sent to the legacy` } : sent;
    const view = new ExchangeView(ex, settings);
    const judgement = judge?.judgedHere(ex, view);
    return [answerOf(view), view.kind.operation, (ex.response?.body.length ?? 0) >= LARGE_BODY_BYTES, { ex: keepHead(ex), ...(judgement ? { judgement } : {}) }];
  };
  /** Sends the triple, judging and reducing each answer before the next is sent: a triple holds one
   *  answer's text and tree at a time, never three. What a large one left behind is collected at
   *  once (collect.ts). In this order: the legacy, the candidate, the legacy again (what moves
   *  between the legacy's two is noise). Returns what is folded of it, in its turn. */
  const compare = async (spec: ExchangeSpec, held: TripleSlots, portion: SendBudget): Promise<Compared> => {
    // Which side a send is for is said, not read from its URL: a candidate at the legacy's URL (a
    // run comparing a deployment with itself) had its exchanges named and judged as the legacy's.
    const reduced = async (url: string, toLegacy: boolean, judge?: Judge) => {
      const [a, op, large, judged] = await answer(spec, url, held, portion, judge, toLegacy);
      if (large) collectGarbage();
      return [a, op, judged] as const;
    };
    const [a, op, legacy] = await reduced(options.legacyUrl, true, judges.legacy);
    const [b, , candidate] = await reduced(options.baseUrl, false, judges.candidate);
    const [a2] = await reduced(options.legacyUrl, true);
    return { legacy, candidate, comparison: differences.compare(spec, op, a, b, a2) };
  };
  /** Sends one request's triple (or, past the cap, the candidate's request as not sent); undefined
   *  when the stop came before it was begun. */
  const sendTriple = async (spec: ExchangeSpec): Promise<Compared | undefined> => {
    // Taken before the stop, begun after it: not begun (pump takes the next one before a slot is free).
    if (options.stop?.aborted) { cut = true; return undefined; }
    // The cap is taken a comparison's three sends at a time: one the cap has no room for whole is not
    // sent at all, the candidate's request counted as not sent (the run incomplete), never half sent.
    const portion = budget.portion(3);
    if (!portion) {
      const ex = await send(spec, options.baseUrl, { dispatcher, options, budget: { take: () => false, takeRetry: () => false, retryLimit: budget.retryLimit, refusal: `${budget.refusal}: no room left for a comparison's three requests (the legacy, the candidate, the legacy again)` }, slots });
      return { candidate: { ex, judgement: judges.candidate.judgedHere(ex) } };
    }
    // A triple that reads a large body keeps its slot until its three answers are compared, so one
    // triple at a time holds large bodies (reduced to their compared forms as they come).
    const held = new TripleSlots(slots);
    try {
      return await compare(spec, held, portion);
    } finally {
      held.end();
      portion.release();
    }
  };
  /** Folds one triple's judgements and comparison into the judges and the differences. */
  const fold = (c: Compared): void => {
    if (c.legacy?.judgement) judges.legacy.fold(c.legacy.ex, c.legacy.judgement);
    if (c.candidate.judgement) judges.candidate.fold(c.candidate.ex, c.candidate.judgement);
    const first = c.comparison ? differences.fold(c.comparison) : [];
    if (first.length && c.legacy) {
      shown.push(c.legacy.ex, c.candidate.ex);
      for (const p of first) p.shownBy = { legacy: c.legacy.ex.id, candidate: c.candidate.ex.id };
    }
    options.onProgress?.({ exchanges: judges.candidate.exchanges, failedExchanges: judges.candidate.failedExchanges, sent: judges.candidate.sent, cases: judges.candidate.caseCount });
  };
  // Triples are folded in the order their requests were sent, not the order their answers came (as
  // runConformance folds exchanges: run.ts): which findings and differences a report shows as
  // examples, and in which order, is then the same on every run of the same input. A triple whose
  // answers came before an earlier one's waits to be folded: whole when the reports may keep its
  // exchanges (a probe, a finding, a difference: it then holds its slot until folded), otherwise as
  // its judgements, comparison and what folding reads of its exchanges, at most MAX_UNFOLDED of them.
  // (An entry undefined: not begun (the stop), or its task failed, and so does the run.)
  const order = new FoldOrder<Compared>(fold);
  const triple = async (spec: ExchangeSpec) => {
    const seq = order.begin();
    let entry: Compared | undefined;
    let whole = false;
    try {
      const c = await sendTriple(spec);
      if (c) {
        const failed = (j?: Judged) => !!j?.judgement?.looks.some(([, look]) => Array.isArray(look) && look.length > 0);
        whole = spec.origin.source !== 'case' || failed(c.legacy) || failed(c.candidate) || (c.comparison?.differences.length ?? 0) > 0;
        const part = (j: Judged): Judged => ({ ex: foldedPart(j.ex), ...(j.judgement ? { judgement: j.judgement } : {}) });
        entry = whole ? c : { candidate: part(c.candidate), ...(c.legacy ? { legacy: part(c.legacy) } : {}), ...(c.comparison ? { comparison: c.comparison } : {}) };
      }
    } finally {
      order.settle(seq, entry);
    }
    await order.turn(seq, whole);
  };
  try {
    async function* requests(): AsyncGenerator<ExchangeSpec> {
      yield* probes;
      if (options.cases) yield* options.cases as Source<ExchangeSpec>;
      options.onLastTaken?.();
    }
    // Stopped, no triple more is begun; those begun are sent whole (half a triple compares nothing).
    await pump(untilStopped(requests(), options.stop, () => { cut = true; }), concurrency, triple);
  } finally {
    if (!options.dispatcher) await dispatcher.close();
  }
  const t1 = performance.now();
  const context = {
    mode: 'probe' as const, startedAt, sendingMs: t1 - t0, checkingStartedAt: t1, ...(options.part ? { part: options.part } : {}),
    ...(cut ? { stopped: String(options.stop!.reason) } : {}),
  };
  const candidate = runResultOf(judges.candidate, { ...context, baseUrl: options.baseUrl });
  const legacy = runResultOf(judges.legacy, { ...context, baseUrl: options.legacyUrl });
  // A candidate that could not be reached gave no answer: its exchanges are not judged (run.ts), and
  // none is compared either, so no difference is counted against answers that never came.
  const reached = candidate.verdict !== 'unreachable';
  const operations = reached ? differences.operations() : [];
  // The exchange of each failed legacy check's first finding, replayed to the legacy (replay.sh).
  const failing = new Set(legacy.results.flatMap((r) => (r.status === 'fail' && r.examples[0] ? [r.examples[0].exchange] : [])));
  const kept = new Set(candidate.exchanges.map((x) => x.id));
  const added = [...(reached ? shown : []), ...legacy.exchanges.filter((x) => failing.has(x.id))].filter((x) => !kept.has(x.id) && kept.add(x.id));
  return {
    candidate: { ...candidate, exchanges: [...candidate.exchanges, ...added] },
    legacy,
    operations,
    compared: operations.reduce((n, o) => n + o.compared, 0),
    differences: operations.reduce((n, o) => n + [...o.paths.values()].reduce((m, p) => m + p.differing, 0), 0),
    inconclusive: operations.reduce((n, o) => n + o.inconclusive, 0),
  };
}
