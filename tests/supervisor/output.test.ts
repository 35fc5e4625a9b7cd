// The session log and its line references (contract §9): every line goes to the log; agent
// output blocks report the exact log lines they occupy.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SessionOutput, clockTime, fileStamp } from '../../src/supervisor/output.js';
import { tempDir } from '../helpers/cli.js';

function session(mode: 'normal' | 'quiet' | 'summary') {
  const root = tempDir();
  const stderr: string[] = [];
  const out = new SessionOutput(root, mode, new Date(2026, 0, 2, 3, 4, 5), (t) => stderr.push(t));
  const logLines = () => readFileSync(out.logPath, 'utf8').split('\n');
  return { out, stderr, logLines };
}

describe('SessionOutput', () => {
  it('names the log by its start time, relative to the root', () => {
    const { out } = session('normal');
    expect(out.logName).toBe('.helix-logs/helix-20260102-030405.log');
    expect(fileStamp(new Date(2026, 10, 22, 18, 7, 9))).toBe('20261122-180709');
    expect(clockTime(new Date(2026, 0, 1, 7, 8, 9))).toBe('07:08:09');
  });

  it('two sessions started in the same second get their own logs, and each reports its own line ranges', () => {
    const root = tempDir();
    const at = new Date(2026, 0, 2, 3, 4, 5);
    const first = new SessionOutput(root, 'quiet', at, () => undefined);
    const second = new SessionOutput(root, 'quiet', at, () => undefined);
    expect([first.logName, second.logName]).toEqual(['.helix-logs/helix-20260102-030405.log', '.helix-logs/helix-20260102-030405-2.log']);
    first.verbose('first run, line 1');
    second.verbose('second run, line 1');
    second.verbose('second run, line 2');
    const block = first.agentOutputSink();
    block.append('agent of the first run\n');
    expect(block.range()).toEqual({ first: 2, last: 2 });
    expect(readFileSync(first.logPath, 'utf8').split('\n')[1]).toBe('agent of the first run');
  });

  it('reports the log lines an agent block occupies, including output without a final newline', () => {
    const { out, logLines } = session('summary');
    out.verbose('line one');
    out.summary('line two');
    const first = out.agentOutputSink();
    first.append('agent says a\nagent says ');
    first.append('b\nagent says c');
    const a = first.range();
    out.verbose('after');
    const second = out.agentOutputSink();
    second.append('single\n');
    const b = second.range();
    const empty = out.agentOutputSink();
    const c = empty.range();
    const lines = logLines();
    expect(a).toEqual({ first: 3, last: 5 });
    expect(lines.slice(a.first - 1, a.last)).toEqual(['agent says a', 'agent says b', 'agent says c']);
    expect(lines[5]).toBe('after');
    expect(lines.slice(b.first - 1, b.last)).toEqual(['single']);
    expect(c.first).toBe(b.last + 1);
  });

  it('--summary shows only summary lines on stderr; normal mode shows everything; the log has all', () => {
    for (const mode of ['summary', 'quiet', 'normal'] as const) {
      const { out, stderr, logLines } = session(mode);
      out.verbose('detail');
      out.summary('progress');
      const sink = out.agentOutputSink();
      sink.append('agent noise\n');
      sink.range();
      expect(stderr.join('')).toBe(mode === 'normal' ? 'detail\nprogress\nagent noise\n' : 'progress\n');
      expect(logLines()).toEqual(['detail', 'progress', 'agent noise', '']);
    }
  });
});
