// Types for scripts/import-depth.mjs (imported by tests/supervisor/layers.test.ts).
export function importsOf(file: string): Array<{ file: string; typeOnly: boolean }>;
export function deepestChain(options: { from: string; within: string; types: boolean }): string[];
