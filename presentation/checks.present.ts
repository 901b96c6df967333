// The run's checks presented as vitest tests, one per check, grouped area -> operation (see
// lib/reporting/suite.ts). Run by the CLI's presentation child (lib/cli/vitest-run.ts), never by
// `npm test`: it presents verdicts already reached, it does not test anything itself.
import { presentAll } from '../lib/reporting/suite.js';

presentAll();
