// HELIX_NOTIFY with real child processes (src/supervisor/shell/notify.ts): the event reaches the
// program's stdin as one JSON line; a notifier that fails, is missing or hangs is reported in one
// outcome and never holds the caller past its bound — a hung one is killed with everything it
// started (its process group).
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { notify, parseNotifyCommand } from '../../../src/supervisor/shell/notify.js';
import { tempDir } from '../../helpers/cli.js';

describe('parseNotifyCommand', () => {
  it.each([
    [undefined, {}],
    ['  ', {}],
    ['/usr/local/bin/helix-notify', { command: { file: '/usr/local/bin/helix-notify', args: [] } }],
    ['notify-send  --app-name helix', { command: { file: 'notify-send', args: ['--app-name', 'helix'] } }],
    ['["/opt/my tools/notify", "run done", "$HOME"]', { command: { file: '/opt/my tools/notify', args: ['run done', '$HOME'] } }],
  ])('%j', (text, parsed) => {
    expect(parseNotifyCommand(text)).toEqual(parsed);
  });

  it.each([
    ['notify-send "run done"', /never run by a shell/],
    ['notify $HOME', /never run by a shell/],
    ['notify; rm -rf /', /never run by a shell/],
    ['[not json', /not a JSON array/],
    ['[]', /non-empty strings/],
    ['["notify", 3]', /non-empty strings/],
  ])('%j is refused with one line', (text, message) => {
    const { command, error } = parseNotifyCommand(text);
    expect(command).toBeUndefined();
    expect(error).toMatch(message);
    expect(error).not.toContain('\n');
  });
});

/** A notifier script in a temp folder; returns its command. */
function script(body: string): { command: { file: string; args: string[] }; dir: string } {
  const dir = tempDir('helix-notify-');
  const file = join(dir, 'notifier.sh');
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return { command: { file, args: [join(dir, 'out')] }, dir };
}

/** Whether a process is still running (a zombie is not: it only waits to be reaped). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

const event = { v: 1, type: 'stop', time: '2026-11-26T20:00:00.000Z', run: 'r1', reason: 'budget', detail: 'a "quoted" line\nand a second' };

describe('notify', () => {
  it('the program gets the event as one JSON line on stdin, with its own arguments', async () => {
    const { command, dir } = script('cat > "$1"');
    expect(await notify(command, event)).toEqual({ ok: true });
    expect(readFileSync(join(dir, 'out'), 'utf8')).toBe(`${JSON.stringify(event)}\n`);
  });

  it('a notifier that fails or is missing: one outcome, no throw', async () => {
    expect(await notify(script('exit 3').command, event)).toEqual({ ok: false, why: 'exited 3' });
    expect(await notify({ file: '/nonexistent/helix-notify', args: [] }, event)).toEqual({ ok: false, why: 'not found' });
    expect(await notify(script('kill -TERM $$').command, event)).toEqual({ ok: false, why: 'killed by SIGTERM' });
  });

  it('a notifier that never reads its stdin does not break the caller, whatever the event size', async () => {
    expect(await notify(script('exit 0').command, { ...event, detail: 'x'.repeat(1_000_000) })).toEqual({ ok: true });
  });

  it('a notifier that hangs, ignores SIGTERM and started a child: killed at the bound, its child too', async () => {
    const { command, dir } = script(`trap '' TERM\nsleep 1000 &\necho $$ $! > "$1.pids"\nwait`);
    const outcome = await notify(command, event, { timeoutMs: 2000 });
    expect(outcome).toEqual({ ok: false, why: 'did not finish within 2s: killed' });
    expect(existsSync(join(dir, 'out.pids'))).toBe(true);
    const pids = readFileSync(join(dir, 'out.pids'), 'utf8').trim().split(' ').map(Number);
    expect(pids).toHaveLength(2);
    // SIGKILL is delivered asynchronously: give the processes up to ~10 s to go
    for (let i = 0; i < 2000 && pids.some(running); i++) await new Promise((resolve) => setTimeout(resolve, 5)); // poll pacing
    expect(pids.filter(running)).toEqual([]);
  });
});
