// JSONPath-style locations for evidence: $.enrollmentInfo.siteId, $.roles[2], $.map["a b"].x
import { remembered } from '../detached.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export const ROOT = '$';
/** Whether a key is an identifier, for the keys seen most (the contract's names: every slot of every
 *  answer is given a path). */
const isIdentifier = remembered((key) => IDENTIFIER.test(key), 4096, 64);
export const member = (path: string, key: string): string =>
  isIdentifier(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
export const index = (path: string, i: number): string => `${path}[${i}]`;
