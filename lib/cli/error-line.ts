// A line of a program's own on stderr (a refused option, a file it cannot use, a problem after the
// run): it quotes what the user or the environment gave (a BASE_URL, a path, a name), so every
// control, bidi and C1 character in it is shown escaped (displayLine), and a CI runner's command
// words are made inert (consoleText), as on every other output.
import { consoleText, displayLine } from '../reporting/display.js';

export const errorLine = (line: string): void => {
  process.stderr.write(`${consoleText(displayLine(line))}\n`);
};
