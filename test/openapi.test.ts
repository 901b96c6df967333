// The exported OpenAPI (fixtures/openapi/openapi.json), judged by tools nobody here wrote.
//
// Redocly's linter (@redocly/openapi-core, the engine of `redocly lint`) holds the document to
// OpenAPI 3.1. openapi-backend, an OpenAPI router and validator, then holds every JSON answer of
// the reference to it: the request is matched to the document's operation, the status must be one
// the operation describes, the media type one that response describes, and the body must satisfy
// its schema. Every legitimate style must pass; every fault that changes a JSON answer must be
// rejected, except the few no OpenAPI document can express, each named with its reason.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Ajv2020, type Options as AjvOptions } from 'ajv/dist/2020.js';
import { parse as parseContentType } from 'content-type';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../lib/contract/export.js';
import { JSONP_MEDIA_TYPES, OPENAPI_FILE } from '../lib/contract/openapi.js';
import { FORMATS, JSON_MEDIA_TYPE, JSON_OPERATIONS, replyRoute } from '../lib/contract/operations.js';
import type { Variant } from '../lib/reference/profile.js';
import { startReference } from '../lib/reference/server.js';
import { FAULTS, STYLES } from '../lib/reference/variants.js';

const OPENAPI_TEXT = readFileSync(join(FIXTURES, OPENAPI_FILE), 'utf8');
const document = () => JSON.parse(OPENAPI_TEXT) as Record<string, unknown>;

/** recommended-strict makes every warning an error. Three rules ask for what interface.md does not
 *  show, and the document must not invent: a licence, 4XX responses (section 7: errors not shown)
 *  and a security scheme (section 5: authentication not shown). */
const LINT_RULES_OFF = { 'info-license': 'off', 'operation-4xx-response': 'off', 'security-defined': 'off' } as const;

async function lintProblems(source: string): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended-strict'], rules: LINT_RULES_OFF });
  const problems = await lintFromString({ source, absoluteRef: join(FIXTURES, OPENAPI_FILE), config });
  return problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
}

describe(`fixtures/${OPENAPI_FILE} under Redocly lint`, () => {
  it('is valid OpenAPI 3.1 (recommended-strict, less the rules on what the spec does not show)', async () => {
    expect(await lintProblems(OPENAPI_TEXT)).toEqual([]);
  });

  it('is linted for real: a broken copy is refused', async () => {
    const broken = document() as { components: { schemas: { EnrollmentInfo: { properties: { siteId: Record<string, unknown> } } } } };
    broken.components.schemas.EnrollmentInfo.properties.siteId.type = 'guid';
    expect((await lintProblems(JSON.stringify(broken))).join('\n')).toMatch(/^struct .*siteId\/type/m);
  });
});

// ---------------------------------------------------------------------------------------------

/** openapi-backend compiles schemas with Ajv's draft-07 class by default; OpenAPI 3.1 schemas are
 *  JSON Schema 2020-12, so it is handed Ajv's 2020-12 class (its own customizeAjv hook). */
async function openApiBackend(): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    definition: document() as never,
    // quick: skips openapi-backend's own check of the document, which knows OpenAPI 3.0 only
    // (Redocly checks it above); strict: any failure to load the document throws.
    quick: true,
    strict: true,
    customizeAjv: (_draft07, options) => new Ajv2020({ ...(options as AjvOptions), allErrors: true, allowUnionTypes: true }) as never,
  });
  await api.init();
  return api;
}

const CALLBACK = 'onRecord';
const XML_ACCEPT = { accept: 'application/xml' };

interface JsonRequest {
  readonly method: 'post' | 'options';
  readonly path: string;
  readonly query: Record<string, string>;
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

const requestFixture = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, `requests/${name}.json`), 'utf8'));
const [FORMAT_NAME, FORMAT_VALUE] = FORMATS.jsonQuery.split('=') as [string, string];

/** Every JSON request section 4 describes, for both operations: the route and its alternate, the
 *  `.json` suffix and ?format=json (each against Accept: application/xml, so the override shows),
 *  ?callback on every POST path, and OPTIONS. */
const JSON_REQUESTS: readonly JsonRequest[] = JSON_OPERATIONS.flatMap((op) => {
  const post = (path: string, query: Record<string, string> = {}, headers: Record<string, string> = {}): JsonRequest =>
    ({ method: 'post', path, query, headers: { 'content-type': JSON_MEDIA_TYPE, ...headers }, body: requestFixture(op.request.name) });
  const callback = { [FORMATS.callbackParam]: CALLBACK };
  return [
    post(op.route),
    post(op.route + FORMATS.jsonSuffix, {}, XML_ACCEPT),
    post(op.route, { [FORMAT_NAME]: FORMAT_VALUE }, XML_ACCEPT),
    post(op.route, callback),
    post(op.route + FORMATS.jsonSuffix, callback),
    post(replyRoute(op)),
    post(replyRoute(op), callback),
    { method: 'options', path: op.route, query: {}, headers: {} },
  ];
});

interface Answer { readonly status: number; readonly type: string | null; readonly body: string }

async function send(base: string, r: JsonRequest): Promise<Answer> {
  const query = new URLSearchParams(r.query).toString();
  const res = await fetch(`${base}${r.path}${query ? `?${query}` : ''}`, {
    method: r.method.toUpperCase(),
    // No content coding: the document describes the bodies' shape, not their coding (compression has
    // its own checks, test/compression.test.ts), and fetch would offer gzip by default.
    headers: { 'accept-encoding': 'identity', ...r.headers },
    ...(r.body === undefined ? {} : { body: JSON.stringify(r.body) }),
  });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

const describeRequest = (r: JsonRequest): string =>
  `${r.method.toUpperCase()} ${r.path}${Object.keys(r.query).length ? `?${new URLSearchParams(r.query)}` : ''}${r.headers.accept ? ` (Accept: ${r.headers.accept})` : ''}`;

const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
const schemaErrors = (schema: object, value: unknown): string[] => {
  const validate = ajv.compile(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
};

/** The answer judged against the operation the document gives for the request; empty: conforms. */
function answerProblems(api: OpenAPIBackend, r: JsonRequest, answer: Answer, options: { allowDefault?: boolean } = {}): string[] {
  const op = api.matchOperation({ method: r.method, path: r.path, query: r.query, headers: r.headers }) as Operation | undefined;
  if (!op) return ['the document describes no such operation'];
  const responses = (op.responses ?? {}) as Record<string, { content?: Record<string, { schema: object }> }>;
  const key = [String(answer.status), `${Math.floor(answer.status / 100)}XX`, 'default'].find((k) => k in responses);
  if (!key) return [`status ${answer.status} is not among the responses described (${Object.keys(responses).join(', ')})`];
  if (key === 'default' && !options.allowDefault) return [`status ${answer.status} is described only by the non-normative default`];
  const content = responses[key]!.content;
  if (!content) return []; // no body is described (OPTIONS)
  const media = answer.type ? parseContentType(answer.type).type : '(none)';
  const described = content[media];
  if (!described) return [`media type ${media} is not among those described for ${key} (${Object.keys(content).join(', ')})`];

  const bodyErrors = (json: unknown): string[] => {
    const result = api.validateResponse(json, op, answer.status);
    return (result.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
  };
  if (media === JSON_MEDIA_TYPE) {
    try {
      return bodyErrors(JSON.parse(answer.body));
    } catch {
      return ['the body is not JSON'];
    }
  }
  // JSONP: the text against the document's string schema, then the argument of the call, run as
  // the JavaScript it is, against the operation's JSON schema.
  const textErrors = schemaErrors(described.schema, answer.body);
  if (textErrors.length) return textErrors.map((e) => `${media} ${e}`);
  const calls: unknown[][] = [];
  try {
    runInNewContext(answer.body, { [CALLBACK]: (...args: unknown[]) => { calls.push(args); } }, { timeout: 30_000 });
  } catch (e) {
    return [`the JSONP body does not run: ${(e as Error).message}`];
  }
  if (calls.length !== 1 || calls[0]!.length !== 1) return [`the JSONP body makes ${calls.length} call(s) of ${CALLBACK}, not one with one argument`];
  return bodyErrors(calls[0]![0]).map((e) => `${media} argument ${e}`);
}

interface Served { readonly answers: readonly Answer[]; readonly problems: Readonly<Record<string, readonly string[]>> }

async function serve(api: OpenAPIBackend, variants: readonly Variant[]): Promise<Served> {
  const ref = await startReference({ variants });
  try {
    const answers = await Promise.all(JSON_REQUESTS.map((r) => send(ref.url, r)));
    const problems = Object.fromEntries(JSON_REQUESTS
      .map((r, i) => [describeRequest(r), answerProblems(api, r, answers[i]!)] as const)
      .filter(([, p]) => p.length));
    return { answers, problems };
  } finally {
    await ref.close();
  }
}

/** Faults that change a JSON answer in a way no OpenAPI document can tell apart from a right one. */
const BEYOND_OPENAPI: Readonly<Record<string, string>> = {
  'json-integer-fraction': "JSON Schema's data model: 1048576.0 is the integer 1048576 once parsed (the harness reads the lexeme)",
  'json-pascal-case-name': 'userName may be omitted (null) and unknown members are allowed, so UserName reads as an extra member',
  'json-enum-camel-case': 'the open enums\' value sets are not given (2.4), so the schema allows any name: it cannot tell "center" from a new value',
  'callback-ignored': 'OpenAPI cannot tie the JSONP media type to the presence of ?callback: plain JSON is a described 200',
};
// (callback-renamed is caught, though no schema can name the function: the JSONP is run, and it
// does not call the function the request named.)

describe(`every JSON answer of the reference against fixtures/${OPENAPI_FILE} (openapi-backend)`, () => {
  let api: OpenAPIBackend;
  let plain: Served;
  beforeAll(async () => {
    api = await openApiBackend();
    plain = await serve(api, []);
  });

  it('the requests sent are the document\'s own: every operation is exercised, and each request is valid', () => {
    const exercised = new Set(JSON_REQUESTS.map((r) => (api.matchOperation({ method: r.method, path: r.path, query: r.query, headers: r.headers }) as Operation).operationId));
    expect([...exercised].sort()).toEqual(api.getOperations().map((o) => o.operationId).sort());
    const invalid = JSON_REQUESTS.map((r) => [describeRequest(r), api.validateRequest({ ...r })] as const).filter(([, v]) => !v.valid);
    expect(Object.fromEntries(invalid.map(([name, v]) => [name, v.errors]))).toEqual({});
  });

  it('the plain reference: every answer is described, status, media type and body', () => {
    expect(plain.problems).toEqual({});
    expect(plain.answers.map((a) => a.status)).toEqual(JSON_REQUESTS.map(() => 200));
  });

  it(`every legitimate style (${STYLES.length}) is described too`, async () => {
    const served = await Promise.all(STYLES.map((style) => serve(api, [style])));
    const failing = Object.fromEntries(STYLES.map((s, i) => [s.name, served[i]!.problems]).filter(([, p]) => Object.keys(p!).length));
    expect(failing).toEqual({});
  });

  it('every fault that changes a JSON answer is rejected, bar those no OpenAPI document can express', async () => {
    const same = (a: Answer, b: Answer) => a.status === b.status && a.type === b.type && a.body === b.body;
    const served = await Promise.all(FAULTS.map((fault) => serve(api, [fault])));
    // A fault that changes no JSON answer is a SOAP fault: nothing here to judge.
    const touching = FAULTS.filter((_, i) => !served[i]!.answers.every((a, j) => same(a, plain.answers[j]!)));
    const accepted = touching.filter((f) => !Object.keys(served[FAULTS.indexOf(f)]!.problems).length).map((f) => f.name);
    expect(accepted.sort()).toEqual(Object.keys(BEYOND_OPENAPI).sort());
    // What the validator is shown to catch, among others: types, formats, members, routes, media types.
    expect(touching.map((f) => f.name)).toEqual(expect.arrayContaining([
      'json-datetime-three-digits', 'json-guid-dashed-at-depth', 'json-integer-as-string', 'json-value-member-missing',
      'json-settings-present', 'login-route-missing', 'login-options-refused', 'json-extension-ignored', 'login-plain-media-type',
    ]));
  });

  it("an error answer fits the non-normative default: ServiceStack's responseStatus", async () => {
    const ref = await startReference();
    try {
      const bad: JsonRequest = { method: 'post', path: '/user/confirmemail', query: {}, headers: { 'content-type': JSON_MEDIA_TYPE }, body: { ownerId: 'not-a-number' } };
      expect(api.validateRequest({ ...bad }).valid).toBe(false); // the document says what a request must be
      const answer = await send(ref.url, bad);
      expect(answer.status).toBe(400);
      expect(answerProblems(api, bad, answer)).toEqual([`status 400 is described only by the non-normative default`]);
      expect(answerProblems(api, bad, answer, { allowDefault: true })).toEqual([]);
    } finally {
      await ref.close();
    }
  });
});

describe('the JSONP schema', () => {
  it(`describes ${JSONP_MEDIA_TYPES.join(' and ')} answers that are not JSON`, () => {
    const schema = (document() as { paths: Record<string, { post: { responses: { 200: { content: Record<string, { schema: object }> } } } }> })
      .paths[JSON_OPERATIONS[0]!.route]!.post.responses[200].content[JSONP_MEDIA_TYPES[0]]!.schema;
    expect(schemaErrors(schema, 'cb({"a":1})')).toEqual([]);
    expect(schemaErrors(schema, '{"a":1}')).not.toEqual([]);
    expect(schemaErrors(schema, 'cb({"a":1}); alert(1)')).not.toEqual([]);
  });
});
