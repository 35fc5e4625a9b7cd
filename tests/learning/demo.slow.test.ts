// `npm run demo` end to end (scripts/demo.mjs, the stand-in from examples/demo-agent, the real
// helix): the parser bead needs a line only its check's message names. The first attempt fails,
// helix stores the failure with the agent's LEARNED line, and the retry succeeds because the
// injected memory says what to add — which the control run without memory never does.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, cleanEnv, tempDir } from '../helpers/cli.js';

const DEMO = join(REPO_ROOT, 'scripts', 'demo.mjs');

/**
 * Text with what differs per run made equal: the project folder, bead ids, clock times, log names
 * and line numbers, durations; and no terminal colours.
 */
const normalise = (text: string): string =>
  text
    .replace(/\x1b\[[0-9;]*m/g, '')
    .replace(/\S*\/helix-demo-[A-Za-z0-9]{6}\//g, '<project>/')
    .replace(/helix-demo-[a-z0-9]+-[0-9a-f]{8}/g, '<id>')
    .replace(/\[\d\d:\d\d:\d\d\]/g, '[<time>]')
    .replace(/helix-\d{8}-\d{6}\.log/g, '<log>')
    .replace(/L\d+–L\d+/g, 'L<n>–L<n>')
    .replace(/, \d+s, /g, ', <n>s, ');

/** The demo's transcript in docs/demo.md (the README points there): its lines other than `…`, in order. */
function documentedTranscript(): string[] {
  const page = readFileSync(join(REPO_ROOT, 'docs', 'demo.md'), 'utf8');
  const block = /What `npm run demo` prints[\s\S]*?```text\n([\s\S]*?)```/.exec(page);
  if (!block) throw new Error('docs/demo.md: the demo transcript is missing');
  return normalise(block[1]!).split('\n').filter((l) => l.trim() && l.trim() !== '…');
}

/** `npm run demo` with stdout and stderr in one file, interleaved as a terminal shows them. */
function demo(...args: string[]) {
  const file = join(tempDir('helix-demo-out-'), 'out.txt');
  const fd = openSync(file, 'w');
  try {
    const run = spawnSync(process.execPath, [DEMO, ...args], { env: { ...cleanEnv(), HELIX_BACKOFF_SLEEP: '0' }, stdio: ['ignore', fd, fd] });
    return { status: run.status, out: readFileSync(file, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

describe('npm run demo', () => {
  it('the retry passes the check because the memory of the failure carries the missing fact, and only that memory is credited', () => {
    const { status, out } = demo();
    expect(status).toBe(0);
    expect(out).toMatch(/run complete: 5 attempted, 5 completed, 0 skipped/);
    expect(out).toMatch(/attempt 1 failed: execution_failed: the bead's check failed \(sh check\/cli-spec\.sh\)/);
    expect(out).toContain("LEARNED: src/args.txt: SPEC-CLI §2 says the parser runs in strict mode: add the line 'strict: true'");
    const used = /memory (\S+) says to add the line 'strict: true' to src\/args\.txt; added it/.exec(out);
    expect(used).not.toBeNull();
    expect(out).toContain(`UTILIZED: ["${used![1]}"]`);
    // The stored failure: its resolution is the agent's LEARNED line; one verified use helped. The
    // relevance gate keeps it out of "Help text", which it is not about, so nothing counts against it.
    expect(out).toContain(`failure memory ${used![1]}`);
    expect(out).toContain("resolution: src/args.txt: SPEC-CLI §2 says the parser runs in strict mode: add the line 'strict: true'");
    expect(out).toContain('helped 0.5, failed 0, effectiveness 1');
    // it ends with the night's page, kept after the project is removed: an element per attempt (the parser's two)
    const page = /open it in a browser:\n(\S+\.report\.html)\n/.exec(out)?.[1];
    expect(page && existsSync(page)).toBeTruthy();
    expect(readFileSync(page!, 'utf8').match(/data-attempt="/g)).toHaveLength(5);

    // docs/demo.md shows this run: each of its lines, in its order, is a line of the output.
    const lines = normalise(out).split('\n');
    let at = 0;
    for (const line of documentedTranscript()) {
      const found = lines.indexOf(line, at);
      expect({ line, found: found >= 0 }).toEqual({ line, found: true });
      at = found + 1;
    }
  });

  it('without memory the same bead fails every attempt and is skipped', () => {
    const { out } = demo('--no-memory');
    expect(out).toMatch(/run complete: \d+ attempted, \d+ completed, 2 skipped/);
    const parser = /^(helix-demo-\S+) .* Argument parser$/m.exec(out)![1]!;
    expect(out).toContain(`${parser} — intractable after 4 attempts with exponential backoff`);
    expect(out).not.toMatch(/says to add the line/);
  });
});
