// The bead file's bytes, kept exactly. Lines helix does not change go back byte for byte, even
// when they are not valid UTF-8 (a latin-1 `é` is the single byte E9, which a UTF-8 decoder would
// turn into U+FFFD and a write into EF BF BD). So a file that is not valid UTF-8 is decoded with
// each byte that is not part of a valid sequence kept as a lone low surrogate U+DC80–U+DCFF
// (Python's "surrogateescape"), and encoding turns exactly those back into their bytes. Valid
// UTF-8 never decodes to a lone surrogate and JSON.stringify escapes the ones a value holds, so
// only bytes read this way are written raw. JSON.parse reads such a line as usual; a field holding
// the odd byte shows as U+FFFD.
import { isAscii, isUtf8 } from 'node:buffer';

/** A lone low surrogate standing for one undecodable byte (never preceded by a high surrogate). */
const ESCAPED_BYTE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/g;

/** The text of a bead file's bytes, every byte recoverable by encodeBeadsText. */
export function decodeBeadsBytes(bytes: Buffer): string {
  // Most bead files are pure ASCII; decoding those as latin1 skips UTF-8 decoding (half the
  // read time on a 5 MB file) and yields the same string.
  if (isAscii(bytes)) return bytes.toString('latin1');
  if (isUtf8(bytes)) return bytes.toString('utf8');
  const lines: string[] = [];
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    const line = bytes.subarray(start, end);
    lines.push(isUtf8(line) ? line.toString('utf8') : decodeEscaping(line));
    start = end + 1;
  }
  return lines.join('\n');
}

/** The bytes of bead-file text: UTF-8, with each escaped byte written back as itself. */
export function encodeBeadsText(text: string): Buffer {
  if ((text as string & { isWellFormed(): boolean }).isWellFormed()) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let last = 0;
  for (const match of text.matchAll(ESCAPED_BYTE)) {
    parts.push(Buffer.from(text.slice(last, match.index), 'utf8'), Buffer.of(match[0].charCodeAt(0) - 0xdc00));
    last = match.index + 1;
  }
  parts.push(Buffer.from(text.slice(last), 'utf8'));
  return Buffer.concat(parts);
}

/** Length of the valid UTF-8 sequence starting at `i` (1–4), or 0 when the byte there starts none. */
function sequenceLength(bytes: Buffer, i: number): number {
  const b0 = bytes[i]!;
  if (b0 < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < bytes.length && bytes[i + k]! >= lo && bytes[i + k]! <= hi;
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    // no overlong forms (E0 A0+), no UTF-16 surrogates (ED below A0)
    const [lo, hi] = b0 === 0xe0 ? [0xa0, 0xbf] : b0 === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const [lo, hi] = b0 === 0xf0 ? [0x90, 0xbf] : b0 === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

function decodeEscaping(line: Buffer): string {
  let out = '';
  let run = 0; // start of the current run of valid sequences
  let i = 0;
  while (i < line.length) {
    const length = sequenceLength(line, i);
    if (length > 0) {
      i += length;
      continue;
    }
    out += line.toString('utf8', run, i) + String.fromCharCode(0xdc00 + line[i]!);
    i += 1;
    run = i;
  }
  return out + line.toString('utf8', run, i);
}
