// The one exit path's trigger: SIGHUP, SIGINT, SIGTERM and a lost stdout/stderr reader each abort
// the watched work with their own exit code, and the handlers are gone once the work is done.
import { beforeEach, describe, expect, it, vi } from 'vitest';

type Interrupts = typeof import('../../../src/supervisor/shell/interrupts.js');
let interrupts: Interrupts;

beforeEach(async () => {
  // a fresh module each time: a lost stream is remembered for the life of the process
  vi.resetModules();
  interrupts = await import('../../../src/supervisor/shell/interrupts.js');
});

describe('watchInterrupts', () => {
  it.each([
    ['SIGHUP', 129],
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s aborts the work with exit %i, and only the first one counts', async (name, code) => {
    const before = process.listenerCount(name);
    const seen = await interrupts.watchInterrupts(async (watch) => {
      expect(process.listenerCount(name)).toBe(before + 1);
      process.emit(name, name);
      process.emit('SIGTERM', 'SIGTERM'); // a second, different signal does not replace the first
      return { aborted: watch.signal.aborted, received: watch.received };
    });
    expect(seen).toEqual({ aborted: true, received: { cause: name, exitCode: code, what: name } });
    expect(process.listenerCount(name)).toBe(before);
  });

  it('a reader of stdout or stderr that went away aborts it with 141, as SIGPIPE would', async () => {
    const seen = await interrupts.watchInterrupts(async (watch) => {
      process.stderr.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      return watch.received;
    });
    expect(seen).toEqual({ cause: 'stderr', exitCode: 141, what: 'a closed stderr (EPIPE: its reader went away)' });
    expect(interrupts.outputLost('stderr')).toBe(true);
    // work that starts after the reader left is interrupted at once
    expect(await interrupts.watchInterrupts(async (watch) => watch.signal.aborted)).toBe(true);
  });

  it('untilInterrupted gives the work\'s value, or the interrupt that cut it short', async () => {
    expect(await interrupts.untilInterrupted(async () => 42)).toEqual({ value: 42 });
    const cut = await interrupts.untilInterrupted(async (signal) => {
      process.emit('SIGINT', 'SIGINT');
      if (signal.aborted) throw new Error('aborted');
      return 0;
    });
    expect(cut).toEqual({ interrupt: { cause: 'SIGINT', exitCode: 130, what: 'SIGINT' } });
    await expect(interrupts.untilInterrupted(async () => Promise.reject(new Error('plain failure')))).rejects.toThrow('plain failure');
  });
});
