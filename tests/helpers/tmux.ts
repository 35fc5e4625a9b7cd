// A real terminal for tests of what a person sees: a tmux server of the test's own (its socket in a
// temp folder), one window of a given size running a command (an argument array, no shell), the
// screen read back with capture-pane, resized with resize-window, and the pane kept after the
// command exits so its final screen can be read. Waiting is on a condition of the screen, polled.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

export const HAS_TMUX = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;

export interface Terminal {
  /** The visible screen, one string a row (trailing blanks trimmed). */
  screen(): string[];
  /** Everything the pane printed: its scrollback and its screen. */
  history(): string[];
  /** Polls the screen until `ready` holds for it; throws with the last screen after `timeoutMs`. */
  waitFor(ready: (screen: string[]) => boolean, timeoutMs?: number, what?: string): Promise<string[]>;
  /** Whether the command has exited (the pane stays, dead, to be read). */
  exited(): boolean;
  /**
   * Waits for the command to exit and returns its final screen, read after the exit (waitFor with
   * `exited` as the condition returns the screen read just before it asked: the last lines missing).
   */
  ended(timeoutMs?: number, what?: string): Promise<string[]>;
  resize(columns: number, rows: number): void;
  close(): void;
}

/** Starts `argv` in a new tmux window of `columns`×`rows`, with exactly `env` (tmux passes it on). */
export function openTerminal(argv: string[], options: { columns: number; rows: number; cwd: string; env: NodeJS.ProcessEnv }): Terminal {
  const dir = mkdtempSync(join(tmpdir(), 'helix-tmux-'));
  const socket = join(dir, 'socket');
  const tmux = (...args: string[]) => {
    const r = spawnSync('tmux', ['-S', socket, ...args], { cwd: options.cwd, env: options.env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  // remain-on-exit before the command starts (a short command would be gone before a later set)
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'board', '-x', String(options.columns), '-y', String(options.rows), 'sleep', '3600');
  tmux('set-option', '-g', 'remain-on-exit', 'on');
  tmux('new-window', '-t', 'board:', '-c', options.cwd, ...argv);
  const rows = (...range: string[]) => tmux('capture-pane', '-p', '-t', 'board', ...range).replace(/\n$/, '').split('\n').map((row) => row.trimEnd());
  const screen = () => rows();
  const exited = () => tmux('display-message', '-p', '-t', 'board', '#{pane_dead}').trim() === '1';
  return {
    screen,
    history: () => rows('-S', '-'),
    exited,
    async waitFor(ready, timeoutMs = 60_000, what = 'the screen') {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const rows = screen();
        if (ready(rows)) return rows;
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; the screen:\n${rows.join('\n')}`);
        await delay(100);
      }
    },
    async ended(timeoutMs = 60_000, what = 'the command to end') {
      await this.waitFor(() => exited(), timeoutMs, what);
      return screen();
    },
    resize(columns, rows) {
      tmux('resize-window', '-t', 'board', '-x', String(columns), '-y', String(rows));
    },
    close() {
      spawnSync('tmux', ['-S', socket, 'kill-server']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
