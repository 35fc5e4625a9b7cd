// The output modes (docs/contract/bash-interface.md §0.2) and the session log (§0.3): which stream a line of each
// level reaches in normal, --quiet and --summary mode, and the log ranges of agent blocks.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type LineLevel, type OutputMode, SessionOutput, clockTime, fileStamp, inLog, onStderr } from '../../../src/supervisor/shell/output.js';
import { tempDir } from '../../helpers/cli.js';

function session(mode: OutputMode) {
  const root = tempDir();
  const stderr: string[] = [];
  const stdout: string[] = [];
  const out = new SessionOutput(root, mode, new Date(2026, 0, 2, 3, 4, 5), (t) => stderr.push(t), (t) => stdout.push(t));
  const logLines = () => readFileSync(out.logPath, 'utf8').split('\n');
  return { root, out, stderr, stdout, logLines };
}

describe('SessionOutput', () => {
  it('names the log by its start time; lines print its absolute path', () => {
    const { out, root } = session('normal');
    expect(out.logName).toBe(`${root}/.helix-logs/helix-20260102-030405.log`);
    expect(fileStamp(new Date(2026, 10, 22, 18, 7, 9))).toBe('20261122-180709');
    expect(clockTime(new Date(2026, 0, 1, 7, 8, 9))).toBe('07:08:09');
  });

  it('two sessions started in the same second get their own logs, and each reports its own line ranges', () => {
    const root = tempDir();
    const at = new Date(2026, 0, 2, 3, 4, 5);
    const first = new SessionOutput(root, 'quiet', at, () => undefined, () => undefined);
    const second = new SessionOutput(root, 'quiet', at, () => undefined, () => undefined);
    expect([first.logName, second.logName]).toEqual([`${root}/.helix-logs/helix-20260102-030405.log`, `${root}/.helix-logs/helix-20260102-030405-2.log`]);
    first.narrative('first run, line 1');
    second.narrative('second run, line 1');
    second.narrative('second run, line 2');
    const block = first.logBlock('agent of the first run\n');
    expect(block).toEqual({ first: 1, last: 2 });
    expect(readFileSync(first.logPath, 'utf8').split('\n').slice(block.first, block.last)).toEqual(['agent of the first run']);
  });

  it('the table of §0.2: each level on stderr per mode', () => {
    const table: Record<LineLevel, Record<OutputMode, boolean>> = {
      always: { normal: true, quiet: true, summary: true },
      narrative: { normal: true, quiet: true, summary: false },
      noise: { normal: true, quiet: false, summary: false },
      summary: { normal: false, quiet: false, summary: true },
      terminal: { normal: true, quiet: true, summary: false },
    };
    for (const [level, modes] of Object.entries(table) as Array<[LineLevel, Record<OutputMode, boolean>]>) {
      for (const [mode, shown] of Object.entries(modes) as Array<[OutputMode, boolean]>) expect(onStderr(level, mode), `${level} ${mode}`).toBe(shown);
    }
    // the log has every line, except the form of a pair that the mode does not use
    expect(inLog('narrative', 'summary')).toBe(true);
    expect(inLog('noise', 'quiet')).toBe(true);
    expect(inLog('summary', 'normal')).toBe(false);
    expect(inLog('terminal', 'summary')).toBe(false);
  });

  it('--quiet hides only the noise; --summary moves narrative lines to the log; answers go to stdout', () => {
    for (const mode of ['normal', 'quiet', 'summary'] as const) {
      const { out, stderr, stdout, logLines } = session(mode);
      out.always('always');
      out.narrative('narrative');
      out.noise('noise');
      out.line('summary', 'short form');
      out.line('terminal', 'long form');
      out.answer('the answer');
      const expected = {
        normal: 'always\nnarrative\nnoise\nlong form\n',
        quiet: 'always\nnarrative\nlong form\n',
        summary: 'always\nshort form\n',
      }[mode];
      expect(stderr.join(''), mode).toBe(expected);
      expect(stdout.join('')).toBe('the answer\n');
      const log = { normal: ['always', 'narrative', 'noise', 'long form'], quiet: ['always', 'narrative', 'noise', 'long form'], summary: ['always', 'narrative', 'noise', 'short form'] }[mode];
      expect(logLines()).toEqual([...log, '']);
    }
  });

  it('a block’s range is the log’s line count just before it and just after it (as `wc -l` counted)', () => {
    const { out, logLines } = session('summary');
    out.narrative('line one');
    out.always('line two');
    const a = out.logBlock('--- head ---\nagent says a\nagent says b\n--- end ---\n');
    out.narrative('after');
    const b = out.logBlock('no final newline');
    expect(a).toEqual({ first: 2, last: 6 });
    expect(logLines().slice(a.first, a.last)).toEqual(['--- head ---', 'agent says a', 'agent says b', '--- end ---']);
    expect(b).toEqual({ first: 7, last: 8 });
    expect(logLines()[7]).toBe('no final newline');
  });
});
