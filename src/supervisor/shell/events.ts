// The run's event log: one JSON object per line (NDJSON), appended as the run goes — claim,
// dispatch, agent done, verify, close, backoff, park, limit, memory, stop — so a terminal, a
// script or a notifier can follow a run without parsing its text lines. The format is stable and
// documented in docs/events.md (version `v: 1`; fields are only ever added).
//
// Crash safety: the file is opened O_APPEND and every event is ONE write of one whole line, so
// concurrent writers never interleave inside a line and a crash leaves at most one partial last
// line. A writer that opens a file whose last line is partial first ends it with a newline, so the
// torn line stays a single unreadable line (readers skip and count it) instead of swallowing the
// next event. Readers hold back a last line without its newline: it may still be being written.
import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { printable } from '../../terminal-text.js';

import { EVENT_FORMAT_VERSION, type EventBody, type HelixEvent } from '../core/run-events.js';

export { EVENT_FORMAT_VERSION } from '../core/run-events.js';
export type { EventBody, EventType, HelixEvent, SpendFields } from '../core/run-events.js';

/** The event as its line: JSON (which escapes every newline inside strings) and one newline. */
export function eventLine(event: HelixEvent): string {
  // JSON escapes C0 controls; `printable` also shows C1 controls (U+009B is CSI to a UTF-8
  // terminal), DEL and the bidirectional overrides as `\uXXXX` — still valid JSON, and a bead
  // title or an agent's words never reach a terminal showing the file (`tail -f`) as a sequence
  return `${printable(JSON.stringify(event))}\n`;
}

/** Builds an event of `run` at `time` (the caller's clock). */
export function makeEvent(run: string, time: Date, body: EventBody): HelixEvent {
  return { v: EVENT_FORMAT_VERSION, t: time.toISOString(), run, ...body } as HelixEvent;
}

const NEWLINE = 0x0a;

/** The append-only writer of one run's event file. */
export class EventLog {
  private fd: number | undefined;

  private constructor(fd: number) {
    this.fd = fd;
  }

  /** Opens (creating it and its folder) for appending; ends a torn last line first. */
  static open(path: string): EventLog {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, 'a+');
    const size = fstatSync(fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== NEWLINE) writeAll(fd, Buffer.from('\n'));
    }
    return new EventLog(fd);
  }

  /** Appends one event as one write of one line. */
  append(event: HelixEvent): void {
    if (this.fd === undefined) throw new Error('event log is closed');
    writeAll(this.fd, Buffer.from(eventLine(event), 'utf8'));
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** One write(2) of the whole buffer; a short write (a full disk) is continued, never reordered. */
function writeAll(fd: number, buffer: Buffer): void {
  let written = 0;
  while (written < buffer.length) written += writeSync(fd, buffer, written, buffer.length - written);
}

/** What a reader found in some text of an event file. */
export interface ParsedEvents {
  events: HelixEvent[];
  /** Complete lines that are not an event (a line torn by a crash): skipped, counted. */
  skipped: number;
  /** The text after the last newline: a line still being written. */
  partial: string;
}

/** Parses complete lines; a last line without its newline is returned as `partial`, not parsed. */
export function parseEvents(text: string): ParsedEvents {
  const lines = text.split('\n');
  const partial = lines.pop() ?? '';
  const events: HelixEvent[] = [];
  let skipped = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const event = eventOf(line);
    if (event) events.push(event);
    else skipped++;
  }
  return { events, skipped, partial };
}

function eventOf(line: string): HelixEvent | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const record = value as Record<string, unknown>;
    // a reader accepts any version-1 event, types it does not know included (the format only grows)
    return typeof record.type === 'string' && typeof record.t === 'string' && record.v === EVENT_FORMAT_VERSION ? (value as HelixEvent) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads an event file as it grows: each read() returns the events completed since the last one.
 * Bytes are kept until their line is complete, so a line (or a UTF-8 character) split across two
 * writes is read whole. A file that shrank was replaced: reading starts again from its beginning.
 */
export class EventFollower {
  private offset = 0;
  private pending: Buffer = Buffer.alloc(0);
  /** Complete lines skipped so far (torn by a crash). */
  skipped = 0;

  constructor(readonly path: string) {}

  read(): HelixEvent[] {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return []; // not written yet
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        this.offset = 0;
        this.pending = Buffer.alloc(0);
      }
      if (size === this.offset) return [];
      const chunk = Buffer.alloc(size - this.offset);
      let got = 0;
      while (got < chunk.length) {
        const n = readSync(fd, chunk, got, chunk.length - got, this.offset + got);
        if (n === 0) break;
        got += n;
      }
      this.offset += got;
      const bytes = Buffer.concat([this.pending, chunk.subarray(0, got)]);
      const end = bytes.lastIndexOf(NEWLINE);
      if (end < 0) {
        this.pending = bytes;
        return [];
      }
      this.pending = Buffer.from(bytes.subarray(end + 1));
      const parsed = parseEvents(bytes.subarray(0, end + 1).toString('utf8'));
      this.skipped += parsed.skipped;
      return parsed.events;
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * Follows an event file until `signal` aborts: yields each event as its line completes, checking
 * the file every `pollMs` (a file that does not exist yet is waited for).
 */
export async function* followEvents(path: string, options: { signal: AbortSignal; pollMs?: number }): AsyncGenerator<HelixEvent> {
  const follower = new EventFollower(path);
  const pollMs = options.pollMs ?? 250;
  while (!options.signal.aborted) {
    for (const event of follower.read()) yield event;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        options.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, pollMs);
      options.signal.addEventListener('abort', done, { once: true });
    });
  }
  for (const event of follower.read()) yield event;
}
