// The types of source-hash.mjs, for the TypeScript that reads the stamp (test/setup/current-build.ts).
export const ROOT: string;
export const STAMP: string;
export function sourceHash(): string;
export function missingOutputs(root?: string): string[];
