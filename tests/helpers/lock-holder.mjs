// Test helper: holds the real tracker lock (the tracker's own withLock, from dist/) in a separate
// process, so a test can act while it is held or kill the holder inside its critical section.
// Inside the lock it may write a temp file the way a writer does before its rename
// (`beads.jsonl.tmp-<pid>-<ms>`), then creates the marker file and blocks reading stdin: the lock is
// released when the test writes to or closes the holder's stdin, or never if the test kills it.
// Usage: node lock-holder.mjs <tracker dir> <marker file> [temp file text]
import { readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, marker, tempText] = process.argv.slice(2);
const { withLock } = await import(new URL('../../dist/tracker/index.js', import.meta.url).href);

withLock(dir, () => {
  if (tempText !== undefined) writeFileSync(join(dir, `beads.jsonl.tmp-${process.pid}-${Date.now()}`), tempText);
  writeFileSync(marker, `${process.pid}\n`);
  try {
    readSync(0, Buffer.alloc(1)); // blocks until the test writes a byte or closes stdin
  } catch {
    // stdin already gone: release at once
  }
});
