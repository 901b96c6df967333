// What every report writer is: a name (the one --reports picks it by, unless it is part of another
// choice), and a function from the finished report to the files it wrote in the report directory.
import type { Report } from '../../reporting/report.js';

export interface WriterOutput {
  /** Paths written (a directory counts as one). */
  readonly files: readonly string[];
  /** The report as writing it left it (the presentation's time and memory), when that changed it. */
  readonly report?: Report;
  /** Settles once what writing left to remove (the directory it replaced) is gone: the reports are
   *  done only then, and meanwhile the next writer works. */
  readonly removed?: Promise<void>;
  /** Settles once `files` are all in place when some are still being written (the Allure results,
   *  copied from RAM while report.html is built from them); rejects when they cannot be. */
  readonly finishing?: Promise<void>;
}

export interface ReportWriter {
  readonly name: string;
  /** What it writes, as a problem names it ("cannot write junit.xml"). */
  readonly what: string;
  /** The --reports name that picks it, when it goes with another (exchanges.json with the summary). */
  readonly partOf?: string;
  /** Written after the verdict is printed (the presentation child and Allure take seconds). */
  readonly slow?: boolean;
  /** A writer it is made from: it is not written when that one was not (report.html from allure-results). */
  readonly needs?: string;
  /** Called once a run that will write it has taken its last request or recorded exchange
   *  (`startSlowWriters`): a slow writer starts a child process loading its modules while the run
   *  judges what is left. */
  early?(): void;
  /** Called as the reports begin, when it is chosen: a slow writer starts what it can before its input exists. */
  prepare?(): void;
  write(report: Report, dir: string): Promise<WriterOutput> | WriterOutput;
}
