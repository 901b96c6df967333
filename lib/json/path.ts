// JSONPath-style locations for evidence: $.enrollmentInfo.siteId, $.roles[2], $.map["a b"].x
import { detachedCopy } from '../detached.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export const ROOT = '$';
/** Whether a key is an identifier, for the keys seen most (the contract's names: every slot of every
 *  answer is given a path), bounded: keys a body makes up past it are tested each time. Each key is
 *  kept as a copy: one read from a body can be a view of the whole body, which this process-wide
 *  table would otherwise hold. */
const identifiers = new Map<string, boolean>();
const MAX_REMEMBERED = 4096;
const isIdentifier = (key: string): boolean => {
  let known = identifiers.get(key);
  if (known === undefined) {
    known = IDENTIFIER.test(key);
    if (identifiers.size < MAX_REMEMBERED && key.length <= 64) identifiers.set(detachedCopy(key), known);
  }
  return known;
};
export const member = (path: string, key: string): string =>
  isIdentifier(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
export const index = (path: string, i: number): string => `${path}[${i}]`;
