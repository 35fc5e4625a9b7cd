// The run's NDJSON event log (src/supervisor/shell/events.ts): whole lines only, with real files and real
// writer processes — concurrent appenders never interleave, a SIGKILLed writer leaves whole lines, a
// torn last line (a crash of a writer that wrote in pieces) is isolated and counted, and a follower
// never hands out a line (or a character) still being written.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventFollower, EventLog, type HelixEvent, eventLine, followEvents, makeEvent, parseEvents } from '../../../src/supervisor/shell/events.js';
import { REPO_ROOT, tempDir } from '../../helpers/cli.js';

const at = new Date('2026-11-26T20:00:00.000Z');
const claim = (bead: string, attempt = 1): HelixEvent => makeEvent('run-1', at, { type: 'claim', bead, attempt });
const stop = makeEvent('run-1', at, { type: 'stop', reason: 'budget', exit: 21, detail: 'a line\nwith "quotes" and é', spent: { cost_usd: 1.25, tokens: 3000, unknown_cost_calls: 1 } });

describe('writer and parser', () => {
  it('an event is one line of JSON; a round trip keeps every field', () => {
    expect(eventLine(claim('hx-1'))).toBe('{"v":1,"t":"2026-11-26T20:00:00.000Z","run":"run-1","type":"claim","bead":"hx-1","attempt":1}\n');
    const path = join(tempDir('helix-events-'), '.helix-logs', 'run.events.ndjson');
    const log = EventLog.open(path);
    log.append(claim('hx-1'));
    log.append(stop);
    log.close();
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(3);
    expect(parseEvents(readFileSync(path, 'utf8'))).toEqual({ events: [claim('hx-1'), stop], skipped: 0, partial: '' });
  });

  it('a torn last line (a crash mid-line) is ended before the next event: it is skipped and counted, the next event is whole', () => {
    const path = join(tempDir('helix-events-'), 'run.events.ndjson');
    writeFileSync(path, `${eventLine(claim('hx-1'))}{"v":1,"t":"2026-11-26T2`);
    const log = EventLog.open(path);
    log.append(claim('hx-2'));
    log.close();
    expect(parseEvents(readFileSync(path, 'utf8'))).toEqual({ events: [claim('hx-1'), claim('hx-2')], skipped: 1, partial: '' });
  });

  it('unknown types and fields of version 1 are read (the format only grows); other versions and non-events are skipped', () => {
    const text = '{"v":1,"t":"x","run":"r","type":"future_type","extra":true}\n{"v":2,"t":"x","run":"r","type":"claim"}\n[1]\nnot json\n\n';
    expect(parseEvents(text)).toMatchObject({ events: [{ type: 'future_type', extra: true }], skipped: 3, partial: '' });
  });
});

/**
 * A node process appending events with the built writer (dist/, as helix runs it). It says `ready`
 * on stdout and starts writing when it reads a line on stdin, so two writers can be started together.
 */
function writer(path: string, name: string, count: number): ReturnType<typeof spawn> {
  const script = `
    const { EventLog, makeEvent } = await import(${JSON.stringify(join(REPO_ROOT, 'dist', 'supervisor', 'shell', 'events.js'))});
    const log = EventLog.open(process.argv[1]);
    const detail = '${name}'.repeat(4096);
    process.stdout.write('ready\\n');
    process.stdin.once('data', () => {
      for (let i = 0; i < ${count}; i++) log.append(makeEvent('${name}', new Date(), { type: 'backoff', bead: '${name}-' + i, attempt: i, seconds: 0, reason: detail }));
      process.exit(0);
    });`;
  return spawn(process.execPath, ['--input-type=module', '-e', script, path], { stdio: ['pipe', 'pipe', 'inherit'] });
}

/** Resolves at the writer's `ready`; rejects at once if it exits first (a writer that cannot load). */
const ready = (child: ReturnType<typeof spawn>) =>
  new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the writer exited (${code}) before it was ready`)));
  });
const go = (child: ReturnType<typeof spawn>) => child.stdin?.write('go\n');

const exited = (child: ReturnType<typeof spawn>) => new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

describe('writers in real processes', () => {
  it('two processes appending 4 KB events at once never interleave inside a line', async () => {
    const path = join(tempDir('helix-events-'), 'run.events.ndjson');
    const [a, b] = [writer(path, 'a', 2000), writer(path, 'b', 2000)];
    await Promise.all([ready(a!), ready(b!)]);
    const done = Promise.all([exited(a!), exited(b!)]);
    go(a!);
    go(b!);
    expect(await done).toEqual([0, 0]);
    const parsed = parseEvents(readFileSync(path, 'utf8'));
    expect(parsed.skipped).toBe(0);
    expect(parsed.partial).toBe('');
    expect(parsed.events.filter((e) => e.run === 'a')).toHaveLength(2000);
    expect(parsed.events.filter((e) => e.run === 'b')).toHaveLength(2000);
  });

  it('a writer killed with SIGKILL in the middle of its stream leaves whole lines but, at most, a torn last one', async () => {
    const path = join(tempDir('helix-events-'), 'run.events.ndjson');
    const child = writer(path, 'k', 1_000_000);
    await ready(child);
    go(child);
    const follower = new EventFollower(path);
    let seen = 0;
    while (seen < 200) {
      seen += follower.read().length;
      await new Promise((resolve) => setTimeout(resolve, 5)); // poll pacing, not a wait for an event
    }
    child.kill('SIGKILL');
    await exited(child);
    const parsed = parseEvents(readFileSync(path, 'utf8'));
    expect(parsed.skipped).toBe(0);
    // Linux ends a write to a file at a page boundary on SIGKILL: only the last line may be torn,
    // and the parser holds it back as the start of one event line
    if (parsed.partial !== '') expect(parsed.partial).toMatch(/^\{"v":1,[^\n]*$/);
    expect(parsed.events.length).toBeGreaterThanOrEqual(200);
  });
});

describe('EventFollower', () => {
  it('holds back a line until its newline, and a UTF-8 character split across two writes', () => {
    const path = join(tempDir('helix-events-'), 'run.events.ndjson');
    const follower = new EventFollower(path);
    expect(follower.read()).toEqual([]); // no file yet
    const bytes = Buffer.from(eventLine(stop), 'utf8');
    const split = bytes.indexOf(Buffer.from('é', 'utf8')) + 1; // inside the two bytes of é
    appendFileSync(path, eventLine(claim('hx-1')));
    appendFileSync(path, bytes.subarray(0, split));
    expect(follower.read()).toEqual([claim('hx-1')]);
    expect(follower.read()).toEqual([]);
    appendFileSync(path, bytes.subarray(split));
    expect(follower.read()).toEqual([stop]);
  });

  it('counts torn lines; a replaced (shorter) file is read from its start', () => {
    const path = join(tempDir('helix-events-'), 'run.events.ndjson');
    const follower = new EventFollower(path);
    writeFileSync(path, `${eventLine(claim('hx-1'))}{"torn\n${eventLine(claim('hx-2'))}`);
    expect(follower.read()).toEqual([claim('hx-1'), claim('hx-2')]);
    expect(follower.skipped).toBe(1);
    writeFileSync(path, eventLine(claim('hx-3')));
    expect(follower.read()).toEqual([claim('hx-3')]);
  });
});

describe('followEvents', () => {
  it('waits for the file, yields each event as it is appended, and ends when aborted', async () => {
    const path = join(tempDir('helix-events-'), 'later', 'run.events.ndjson');
    const controller = new AbortController();
    const follow = followEvents(path, { signal: controller.signal, pollMs: 20 });
    const first = follow.next();
    expect(existsSync(path)).toBe(false);
    const log = EventLog.open(path);
    log.append(claim('hx-1'));
    expect((await first).value).toEqual(claim('hx-1'));
    const second = follow.next();
    log.append(stop);
    expect((await second).value).toEqual(stop);
    const end = follow.next();
    controller.abort();
    expect((await end).done).toBe(true);
    log.close();
  });
});
