// Types for scripts/lib/bench-report.mjs (imported by tests/bench-report.test.ts).
export interface BenchSection {
  title: string;
  command: string;
  seconds: number;
  load: number;
  status: number;
  stdout: string;
  stderr: string;
}
export interface BenchRun {
  date: string;
  commit: string;
  command: string;
  machine: { cpus: number; cpuModel: string; memoryGiB: string; node: string; os: string };
  sections: BenchSection[];
}
export function commitLabel(shortHash: string, porcelain: string, reportPath: string): string;
export function renderOutput(stdout: string, root: string): string;
export function renderReport(run: BenchRun, root: string): string;
