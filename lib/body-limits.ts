// Limits on the shape of a body the harness reads, far past anything a conforming answer approaches
// (a user-details record has about 150 values and nests under 10 levels, in JSON and in SOAP). Each is
// checked while reading, before anything is built from the body, so a body that floods one dimension
// (millions of tiny members or elements, deep nesting, a number of a million digits) is refused in one
// line and costs memory of the order of its own size, whatever it holds. Stated in the README beside
// the body cap.
import { withThousands } from './digits.js';

export const BODY_LIMITS = {
  /** Nesting of JSON arrays and objects, or of XML elements. */
  depth: 64,
  /** JSON values (members and items, at every depth), or XML elements, in one body. */
  nodes: 50_000,
  /** Members of one JSON object, or child elements of one XML element. */
  children: 10_000,
  /** Attributes of one XML element (namespace declarations included). */
  attributes: 64,
  /** Characters of one JSON number. */
  numberLength: 64,
  /** Characters of one JSON member name, or one XML element or attribute name. */
  nameLength: 1_024,
} as const;

export type BodyLimit = keyof typeof BODY_LIMITS;

/** One line naming the limit a body passed. */
export function limitMessage(limit: BodyLimit, where = ''): string {
  const n = withThousands(BODY_LIMITS[limit]);
  const what: Record<BodyLimit, string> = {
    depth: `nests deeper than ${n} levels`,
    nodes: `holds more than ${n} values`,
    children: `has an object or element with more than ${n} members`,
    attributes: `has an element with more than ${n} attributes`,
    numberLength: `has a number longer than ${n} characters`,
    nameLength: `has a name longer than ${n} characters`,
  };
  return `${what[limit]}${where} (beyond any record of the interface; not read further)`;
}
