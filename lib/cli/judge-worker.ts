// A judging worker of a run with --jobs N (lib/engine/judge-pool.ts): judges the exchanges the run
// gives it and learns each one's secrets into the run's fingerprints, which live in shared memory, so
// the run's redactor masks in every report what any worker learned.
import { serveJudging } from '../engine/judge-pool.js';
import { Redactor } from '../reporting/redact.js';
import type { LearnerSetup } from './session.js';

serveJudging((data) => {
  const setup = data as LearnerSetup;
  const redactor = new Redactor({ showPersonalData: setup.showPersonalData, secrets: setup.secrets, fingerprints: setup.fingerprints });
  for (const name of setup.secretHeaders) redactor.secretHeader(name);
  return (ex, parsed, keysOf, valuesOf) => redactor.learnFingerprints(ex, parsed, keysOf, valuesOf);
});
