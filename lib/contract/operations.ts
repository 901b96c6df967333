// The three operations of interface.md section 4: routes, methods, media types, selectors.
import {
  Confirmation, ConfirmEmailRequest, ImpersonateLogoutRequest, SupportStateUserLoginRequest, UserDetails,
} from './records.js';
import type { Field, Shape } from './types.js';

export const JSON_MEDIA_TYPE = 'application/json';
export const SOAP_REQUEST_MEDIA_TYPE = 'text/xml; charset=utf-8';
/** 4.2: the observed SOAP response type (ServiceStack itself sends text/xml; the spec wins). */
export const SOAP_RESPONSE_MEDIA_TYPE = 'application/xml';
/** JavaScript media types a JSONP answer may carry (ServiceStack: text/javascript; v3: application/javascript). */
export const JAVASCRIPT_MEDIA_TYPES = ['text/javascript', 'application/javascript', 'application/x-javascript', 'application/ecmascript', 'text/ecmascript'] as const;

/** Section 4 selectors. */
export const FORMATS = {
  jsonSuffix: '.json',
  jsonQuery: 'format=json',
  callbackParam: 'callback',
  soapSuffix: '.soap11',
  soapQuery: 'format=soap11',
} as const;

interface OperationBase {
  /** Short stable key used in exchange and check IDs. */
  readonly key: string;
  /** The request name (section 1). */
  readonly name: string;
  readonly clause: string;
  readonly request: Shape;
  readonly response: Shape;
  /** Prefix of the environment variables that supply the request's values. */
  readonly envPrefix: string;
}

export interface JsonOperation extends OperationBase {
  readonly wire: 'json';
  /** Custom route: POST and OPTIONS. */
  readonly route: string;
}

export interface SoapOperation extends OperationBase {
  readonly wire: 'soap';
  readonly route: string;
  readonly soapAction: string;
  /** Element that holds the response record in the SOAP Body. */
  readonly responseElement: string;
}

export const login: JsonOperation = {
  key: 'login', name: 'SupportStateUserLoginRequest', clause: '4.1', wire: 'json',
  request: SupportStateUserLoginRequest, response: UserDetails, envPrefix: 'LOGIN',
  route: '/supportstateuser',
};

export const confirmEmail: JsonOperation = {
  key: 'confirm', name: 'ConfirmEmailRequest', clause: '4.3', wire: 'json',
  request: ConfirmEmailRequest, response: Confirmation, envPrefix: 'CONFIRM',
  route: '/user/confirmemail',
};

export const impersonateLogout: SoapOperation = {
  key: 'logout', name: 'ImpersonateLogoutRequest', clause: '4.2', wire: 'soap',
  request: ImpersonateLogoutRequest, response: UserDetails, envPrefix: 'LOGOUT',
  route: '/soap11', soapAction: 'ImpersonateLogoutRequest', responseElement: 'UserDetailsResponse',
};

export type Operation = JsonOperation | SoapOperation;

export const JSON_OPERATIONS: readonly JsonOperation[] = [login, confirmEmail];
export const OPERATIONS: readonly Operation[] = [login, impersonateLogout, confirmEmail];

/** The environment variable of a request field: (LOGIN, userName) -> LOGIN_USER_NAME, dataForMM -> DATA_FOR_MM.
 *  The CLI reads the probes' values from these; replay.sh names the values it asks for after them. */
export function envName(prefix: string, f: Field): string {
  return `${prefix}_${f.json.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z])([A-Z][a-z])/g, '$1_$2').toUpperCase()}`;
}

/** An operation by its request name (section 1). */
export const operationNamed = (name: string): Operation | undefined => OPERATIONS.find((op) => op.name === name);

/** ServiceStack's predefined route, "also reachable at" in 4.1 and 4.3. */
export const replyRoute = (op: OperationBase): string => `/json/reply/${op.name}`;
