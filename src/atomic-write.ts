// Replacing a file so that a reader, a crash or a full disk never leaves it half written: the new
// text goes to a temp file beside it (`<file>.tmp-<pid>-<ms>`, created exclusively), is fsynced,
// renamed over the file, and the directory is fsynced so the rename itself survives a power cut.
// Readers see the old file or the new one. On failure the temp file is removed, the file is
// unchanged and the original error is thrown.
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** The temp file a write of `file` uses now; a writer killed before its rename leaves it behind. */
export function atomicTempPath(file: string): string {
  return `${file}.tmp-${process.pid}-${Date.now()}`;
}

export function writeFileAtomically(file: string, text: string | Buffer, options: { mode?: number } = {}): void {
  const temp = atomicTempPath(file);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx', options.mode ?? 0o666);
    const buffer = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    let offset = 0;
    while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, file);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // never created, or already gone
    }
    throw error;
  }
  syncDirectory(dirname(file));
}

function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // some filesystems refuse fsync on directories; the rename is still atomic
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
