// Types for scripts/largest-functions.mjs (imported by tests/supervisor/layers.test.ts).
export interface Measured {
  files: Array<{ file: string; lines: number }>;
  functions: Array<{ name: string; file: string; line: number; lines: number }>;
  folders: Map<string, { files: number; lines: number }>;
}
export function measure(root: string): Measured;
