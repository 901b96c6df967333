// Conformance suite: the "Format selection" checks of the catalogue, one test each (see lib/reporting/suite.ts).
import { presentArea } from '../lib/reporting/suite.js';

presentArea('Format selection');
