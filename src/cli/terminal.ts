// The one place helix's printed text passes through on its way out: stdout and stderr of every
// command write printable() text (src/terminal-text.ts), whatever field or message it came from —
// a bead title in a list, an id in an error, agent output that `helix check` prints, a commander
// message quoting an unknown flag. Wrapping the two streams once, at the entry, is what makes
// that hold for every field, including ones added later.
import { printable } from '../terminal-text.js';

let wrapped = false;

export function printOnlyPrintable(): void {
  if (wrapped) return;
  wrapped = true;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => write(typeof chunk === 'string' ? printable(chunk) : chunk, ...rest)) as typeof stream.write;
  }
}
