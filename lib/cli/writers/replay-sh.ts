// replay.sh: each failing request sent again. 0600: it names the target and the requests sent, and
// is run with secrets set beside it.
import { join } from 'node:path';
import { replaceFile } from '../../reporting/replace-file.js';
import { REPLAY_FILE, replayScript } from '../../reporting/replay-script.js';
import type { ReportWriter } from './report-writer.js';

export const replayWriter: ReportWriter = {
  name: 'replay', what: 'replay.sh', partOf: 'summary',
  write: (report, dir) => ({ files: [replaceFile(join(dir, REPLAY_FILE), replayScript(report), 0o600)] }),
};
