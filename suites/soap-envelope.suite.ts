// The SOAP envelope checks, one test per check (the shared module says how a check becomes a test).
import { presentArea } from './check-tests.js';

presentArea('SOAP envelope');
