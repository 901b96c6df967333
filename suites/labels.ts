// The label that carries a failed SHOULD check's message from its test (check-tests.ts), which passed
// under the MUST gate, to the reporter (auditor-reporter.ts), which files the result as failed and
// drops the label. A module of its own: each side loads only this of the other.
export const SHOULD_NOT_MET = 'shouldNotMet';
/** The label that carries a result's start in the tree's order (tree-order.ts) from its test to the
 *  reporter, which sets the result's start by it and drops the label. */
export const PLACED_AT = 'placedAt';
