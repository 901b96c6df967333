// OpenAPI 3.1 of the JSON operations (interface.md 4.1 and 4.3), derived from the contract and
// exported to fixtures/openapi/openapi.json by `npm run contract:export`. The record schemas are
// json-schema.ts's own (OpenAPI 3.1 schemas are JSON Schema 2020-12), collected under
// #/components/schemas/. The SOAP operation is described by the WSDL (wsdl.ts), not here.
// Where the spec is silent (errors, what OPTIONS returns) the document says so instead of
// inventing an answer.
import { jsonpPattern } from '../json/jsonp.js';
import { SAFE_CALLBACK_CHAR } from './classify.js';
import { shapeSchemas, type Schema } from './json-schema.js';
import { FORMATS, impersonateLogout, JSON_MEDIA_TYPE, JSON_OPERATIONS, replyRoute, type JsonOperation } from './operations.js';
import type { Shape } from './types.js';

/** interface.md's {base_url} in the exports: the reference as the README starts it (`npm run reference -- --port 8080`). */
export const PLACEHOLDER_BASE_URL = 'http://localhost:8080';

/** Where the document's file lives under fixtures/, and the WSDL's, so each can name the other. */
export const OPENAPI_FILE = 'openapi/openapi.json';
export const WSDL_FILE = 'wsdl/service.wsdl';

/** JSONP answers are JavaScript, not JSON: ServiceStack sends text/javascript (application/javascript
 *  in v3, docs/spec/servicestack-notes.md); interface.md names no media type for them. */
export const JSONP_MEDIA_TYPES = ['text/javascript', 'application/javascript'] as const;

/** A call of a safely named function on a JSON object: the language the JSONP check reads
 *  (lib/json/jsonp.ts builds both), ServiceStack's `name(json)` and what other JSONP writers add. */
export const JSONP_PATTERN = jsonpPattern(SAFE_CALLBACK_CHAR);

/** The schema of a record, and of every shape it nests, live in components.schemas. */
const SCHEMAS = '#/components/schemas/';
const ref = (shape: Shape): Schema => ({ $ref: `${SCHEMAS}${shape.name}` });

/** Not in the spec (section 7: errors not shown): ServiceStack's error body, as
 *  docs/spec/servicestack-notes.md describes it. Described so clients know what they may meet. */
const ERROR_SCHEMA_NAME = 'ServiceStackErrorResponse';
const ERROR_SCHEMA: Schema = {
  type: 'object',
  description: 'Non-normative: interface.md section 7 shows no error. ServiceStack writes errors in this shape '
    + '(docs/spec/servicestack-notes.md); stackTrace only in debug mode.',
  properties: {
    responseStatus: {
      type: 'object',
      properties: {
        errorCode: { type: 'string' },
        message: { type: 'string' },
        stackTrace: { type: 'string' },
        errors: {
          type: 'array',
          items: { type: 'object', properties: { errorCode: { type: 'string' }, fieldName: { type: 'string' }, message: { type: 'string' } } },
        },
      },
    },
  },
  required: ['responseStatus'],
};

const [FORMAT_PARAM, FORMAT_JSON] = FORMATS.jsonQuery.split('=') as [string, string];

const formatParameter = {
  name: FORMAT_PARAM,
  in: 'query',
  required: false,
  description: `\`?${FORMATS.jsonQuery}\` selects JSON and overrides content negotiation (the Accept header). interface.md section 4.`,
  schema: { type: 'string', enum: [FORMAT_JSON] },
};

const callbackParameter = {
  name: FORMATS.callbackParam,
  in: 'query',
  required: false,
  description: `\`?${FORMATS.callbackParam}=<function_name>\` wraps the response in a JSON-with-padding call of that function `
    + '(interface.md section 4); the answer is then JavaScript, not JSON. ServiceStack replaces every character '
    + 'outside [A-Za-z0-9._] with "_" (non-normative: the spec does not say).',
  schema: { type: 'string', minLength: 1 },
};

type Route = 'route' | 'suffix' | 'reply';

const ROUTE_TEXT: Record<Route, (op: JsonOperation) => string> = {
  route: (op) => `the route of ${op.clause}`,
  suffix: (op) => `the route of ${op.clause} with the \`${FORMATS.jsonSuffix}\` suffix, which selects JSON and overrides content negotiation (section 4)`,
  reply: (op) => `"also reachable at" in ${op.clause} (ServiceStack's predefined route)`,
};

const OPERATION_ID: Record<Route, (op: JsonOperation) => string> = {
  route: (op) => op.name,
  suffix: (op) => `${op.name}JsonSuffix`,
  reply: (op) => `${op.name}Reply`,
};

function post(op: JsonOperation, path: string, route: Route): Schema {
  return {
    operationId: OPERATION_ID[route](op),
    tags: [op.name],
    summary: `POST ${path}`,
    description: `${op.name}: ${ROUTE_TEXT[route](op)}.`,
    // A `.json` path has already chosen JSON; ?format=json on it would say nothing more.
    parameters: route === 'suffix' ? [callbackParameter] : [formatParameter, callbackParameter],
    requestBody: {
      required: true,
      content: { [JSON_MEDIA_TYPE]: { schema: ref(op.request) } },
    },
    responses: {
      200: {
        description: `The ${op.response.name} record as JSON; with ?${FORMATS.callbackParam}, the same JSON wrapped as a JavaScript call.`,
        content: {
          [JSON_MEDIA_TYPE]: { schema: ref(op.response) },
          ...Object.fromEntries(JSONP_MEDIA_TYPES.map((type) => [type, {
            schema: {
              type: 'string',
              pattern: JSONP_PATTERN,
              description: `JSONP, not JSON: name(<${op.response.name} as in ${JSON_MEDIA_TYPE}>). ServiceStack writes exactly `
                + 'name(json); a trailing ";", whitespace and comments before or after the call, or Express\'s typeof guard are JSONP too.',
            },
          }])),
        },
      },
      default: {
        description: 'Non-normative: interface.md section 7 shows only 200. ServiceStack answers errors in this shape.',
        'x-non-normative': true,
        content: { [JSON_MEDIA_TYPE]: { schema: { $ref: `${SCHEMAS}${ERROR_SCHEMA_NAME}` } } },
      },
    },
  };
}

function options(op: JsonOperation): Schema {
  return {
    operationId: `${op.name}Options`,
    tags: [op.name],
    summary: `OPTIONS ${op.route}`,
    description: `${op.name}: the OPTIONS route of ${op.clause}. What it returns is not shown (interface.md 4.4): any success `
      + "status will do, and no body is described. ServiceStack's CorsFeature answers 200 with an empty body and "
      + 'Access-Control-Allow-* headers (non-normative).',
    responses: { '2XX': { description: 'Any success status; no body is described.' } },
  };
}

const DESCRIPTION = [
  `The HTTP + JSON operations of interface.md (${JSON_OPERATIONS.map((op) => `${op.name}, ${op.clause}`).join('; ')}), `
    + 'derived from lib/contract by `npm run contract:export`; do not edit.',
  '',
  `Selectors (section 4): the \`${FORMATS.jsonSuffix}\` suffix is a path of its own; \`?${FORMATS.jsonQuery}\` and `
    + `\`?${FORMATS.callbackParam}=<function_name>\` are query parameters. \`/json/reply/{Request}\` is the "also reachable at" route.`,
  '',
  'Types (section 2): a datetime is ISO 8601 with seven fractional digits and no zone; a guid is 32 hexadecimal digits '
    + 'without dashes; integers are 32-bit. Members that are null may be omitted. `settings` exists in SOAP only and never in JSON.',
  '',
  `${impersonateLogout.name} (${impersonateLogout.clause}) is SOAP 1.1 only, at \`POST ${impersonateLogout.route}\`: `
    + `it is described by the WSDL (fixtures/${WSDL_FILE}), not here.`,
  '',
  'Not shown by the spec, so not described here: authentication (section 5), errors (section 7; the `default` '
    + "responses are ServiceStack's error shape, marked non-normative), limits (section 8), versioning (section 9).",
].join('\n');

/** The OpenAPI document, as a JSON value. */
export function openApiDocument(): Schema {
  const paths: Record<string, Schema> = {};
  for (const op of JSON_OPERATIONS) {
    paths[op.route] = { post: post(op, op.route, 'route'), options: options(op) };
    paths[op.route + FORMATS.jsonSuffix] = { post: post(op, op.route + FORMATS.jsonSuffix, 'suffix') };
    paths[replyRoute(op)] = { post: post(op, replyRoute(op), 'reply') };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Account login and user-details service: HTTP + JSON',
      // Section 9: no version is given. This is the version of the document's derivation, not of the service.
      version: '1',
      description: DESCRIPTION,
    },
    servers: [{
      url: '{base_url}',
      description: "interface.md's {base_url}, the service's base address.",
      variables: { base_url: { default: PLACEHOLDER_BASE_URL, description: 'The base address of the deployment.' } },
    }],
    tags: JSON_OPERATIONS.map((op) => ({ name: op.name, description: `interface.md ${op.clause}` })),
    paths,
    components: {
      schemas: {
        ...shapeSchemas(JSON_OPERATIONS.flatMap((op) => [op.request, op.response]), SCHEMAS),
        [ERROR_SCHEMA_NAME]: ERROR_SCHEMA,
      },
    },
  };
}
