// The whole catalogue, in presentation order. IDs are stable: reports, filters and the
// sensitivity matrix refer to them.
import { createHash } from 'node:crypto';
import type { Check, EvidenceSource } from './check.js';
import { COMPRESSION_CHECKS } from './compression.js';
import { provenFast } from './fast-record.js';
import { FORMAT_CHECKS } from './format.js';
import { JSON_RECORD_CHECKS } from './json-record.js';
import { JSON_TYPE_CHECKS } from './json-types.js';
import { REQUEST_CHECKS } from './requests.js';
import { ROBUSTNESS_CHECKS } from './robustness.js';
import { ROUTE_CHECKS } from './routes.js';
import { SOAP_ENVELOPE_CHECKS } from './soap-envelope.js';
import { SOAP_RECORD_CHECKS } from './soap-record.js';
import { SOAP_TYPE_CHECKS } from './soap-types.js';

export const CATALOGUE: readonly Check[] = [
  ...ROUTE_CHECKS,
  ...FORMAT_CHECKS,
  ...COMPRESSION_CHECKS,
  ...SOAP_ENVELOPE_CHECKS,
  ...SOAP_RECORD_CHECKS,
  ...SOAP_TYPE_CHECKS,
  // Each one a proof covers finds nothing at once in a proven record (fast-record.ts).
  ...JSON_RECORD_CHECKS.map(provenFast),
  ...JSON_TYPE_CHECKS.map(provenFast),
  ...ROBUSTNESS_CHECKS,
  ...REQUEST_CHECKS,
];

/** The checks a run with these sources of evidence can feed: every check that takes any source,
 *  and those bound to particular sources when the run has one of them. */
export const checksFor = (sources: ReadonlySet<EvidenceSource>, checks: readonly Check[] = CATALOGUE): Check[] =>
  checks.filter((c) => !c.sources || c.sources.some((s) => sources.has(s)));

export const checkById = new Map(CATALOGUE.map((c) => [c.id, c]));
if (checkById.size !== CATALOGUE.length) throw new Error('duplicate check id in the catalogue');

/** Identifies the catalogue's content: ids, clauses, levels, requirements, interpretations, bindings. */
export const CATALOGUE_HASH = createHash('sha256')
  .update(JSON.stringify(CATALOGUE.map(({ id, clause, level, requirement, interpretation, judges, probe, sources }) => [id, clause, level, requirement, interpretation ?? '', judges, probe ?? '', sources ?? []])))
  .digest('hex')
  .slice(0, 16);
