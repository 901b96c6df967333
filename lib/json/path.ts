// JSONPath-style locations for evidence: $.enrollmentInfo.siteId, $.roles[2], $.map["a b"].x
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export const ROOT = '$';
export const member = (path: string, key: string): string =>
  IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
export const index = (path: string, i: number): string => `${path}[${i}]`;
