// The reference's deterministic data: one record per response, kept in fixtures/reference/.
import { readFileSync } from 'node:fs';
import type { JsonObject } from '../json/value.js';
import { fromRoot } from '../paths.js';

const fixture = (name: string): JsonObject =>
  JSON.parse(readFileSync(fromRoot('fixtures', 'reference', name), 'utf8')) as JsonObject;

export const referenceUserDetails = (): JsonObject => fixture('user-details.json');
export const referenceConfirmation = (): JsonObject => fixture('confirmation.json');
