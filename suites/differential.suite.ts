// A differential run (--legacy-url, LEGACY_URL): a test per contract path where the candidate differs
// from the legacy service, beyond noise.
import { presentDifferential } from './check-tests.js';

presentDifferential();
