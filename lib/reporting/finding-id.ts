// A distinct finding's id (summary.json, JUnit properties, GitHub annotations).
import { createHash } from 'node:crypto';

/** A distinct finding's stable id: its check, path and (redacted) message, hashed, so a CI or ticket
 *  system can follow it from run to run. */
export const findingId = (check: string, group: { readonly path?: string; readonly message: string }): string =>
  createHash('sha256').update(`${check}\u0000${group.path ?? ''}\u0000${group.message}`).digest('hex').slice(0, 12);
