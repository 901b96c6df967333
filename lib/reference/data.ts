// The reference's deterministic data: one record per response, kept in fixtures/reference/.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { JsonObject } from '../json/node.js';

const fixture = (name: string): JsonObject =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../../fixtures/reference/${name}`, import.meta.url)), 'utf8')) as JsonObject;

export const referenceUserDetails = (): JsonObject => fixture('user-details.json');
export const referenceConfirmation = (): JsonObject => fixture('confirmation.json');
