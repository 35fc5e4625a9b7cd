// docs/benchmarks.md as `npm run bench` writes it (scripts/lib/bench-report.mjs): the commit the
// figures belong to, the machine, and each benchmark's figures under the command that made them.
import { describe, expect, it } from 'vitest';
import { commitLabel, renderOutput, renderReport } from '../scripts/lib/bench-report.mjs';

const ROOT = '/home/someone/helix';

describe('commitLabel', () => {
  it('is the short hash on a clean tree', () => {
    expect(commitLabel('abc1234', '', 'docs/benchmarks.md')).toBe('abc1234');
  });

  it('adds +dirty when a file is changed or untracked', () => {
    expect(commitLabel('abc1234', ' M src/cli/run.ts\n', 'docs/benchmarks.md')).toBe('abc1234+dirty');
    expect(commitLabel('abc1234', '?? scripts/new.mjs\n', 'docs/benchmarks.md')).toBe('abc1234+dirty');
  });

  it('does not count the report itself, which every run rewrites', () => {
    expect(commitLabel('abc1234', ' M docs/benchmarks.md\n', 'docs/benchmarks.md')).toBe('abc1234');
    expect(commitLabel('abc1234', ' M docs/benchmarks.md\n M README.md\n', 'docs/benchmarks.md')).toBe('abc1234+dirty');
  });
});

describe('renderOutput', () => {
  it('keeps tables as printed, makes every other line a bullet, and hides the checkout path', () => {
    const stdout = `Node v20, 5 runs each, ${ROOT}/bin/helix\n\n| a | b |\n|---|---|\n| 1 ms | 2 ms |\n\nready on 10K beads: 140 ms (target ≤ 150 ms): met\n`;
    expect(renderOutput(stdout, ROOT)).toBe(
      '- Node v20, 5 runs each, ./bin/helix\n\n| a | b |\n|---|---|\n| 1 ms | 2 ms |\n\n- ready on 10K beads: 140 ms (target ≤ 150 ms): met',
    );
  });
});

describe('renderReport', () => {
  const run = {
    date: '2026-11-24T18:00:00Z',
    commit: 'abc1234+dirty',
    command: 'npm run bench',
    machine: { cpus: 2, cpuModel: 'AMD EPYC', memoryGiB: '23.5', node: 'v20.20.2', os: 'linux 6.1' },
    sections: [
      { title: 'Tracker', command: 'node scripts/bench-tracker.mjs --runs 5', seconds: 40.2, load: 1.5, status: 0, stdout: '| x |\n|---|\n| 7 ms |\n', stderr: '' },
      { title: 'Status', command: 'node scripts/bench-status.mjs --runs 21', seconds: 12, load: 5, status: 1, stdout: 'status --json: 195 ms median (target < 150 ms): MISSED\n', stderr: `at ${ROOT}/x\n` },
    ],
  };
  const report = renderReport(run, ROOT);

  it('says when, on which commit and on which machine', () => {
    expect(report).toContain('- date: 2026-11-24T18:00:00Z\n');
    expect(report).toContain('- commit: abc1234+dirty\n');
    expect(report).toContain('- machine: 2 × AMD EPYC, 23.5 GiB, linux 6.1\n');
    expect(report).toContain('- node: v20.20.2\n');
  });

  it('puts each benchmark under the command that produced it, with its figures', () => {
    expect(report).toContain('## Tracker\n\n`node scripts/bench-tracker.mjs --runs 5` — 40 s, load average 1.50 at the start\n\n| x |\n|---|\n| 7 ms |\n');
    expect(report.indexOf('## Tracker')).toBeLessThan(report.indexOf('## Status'));
  });

  it('marks a benchmark that exited non-zero and shows its stderr without the checkout path', () => {
    expect(report).toContain('**Exited 1**');
    expect(report).toContain('```text\nat ./x\n```');
    expect(report.slice(0, report.indexOf('## Status'))).not.toContain('Exited');
  });
});
