// The baseline for judging a HAR: stream-json alone reading the file given as the one argument into
// entry objects (parser, pick log.entries, streamArray), nothing done with them. Prints the entries
// counted and the seconds taken, as JSON.
import { createReadStream } from 'node:fs';
import chain from 'stream-chain';
import { parser } from 'stream-json';
import { pick } from 'stream-json/filters/pick.js';
import { streamArray } from 'stream-json/streamers/stream-array.js';

const t = performance.now();
let entries = 0;
const pipeline = chain([createReadStream(process.argv[2]), parser(), pick({ filter: 'log.entries' }), streamArray()]);
pipeline.on('data', () => { entries++; });
pipeline.on('end', () => process.stdout.write(`${JSON.stringify({ entries, seconds: (performance.now() - t) / 1000 })}\n`));
