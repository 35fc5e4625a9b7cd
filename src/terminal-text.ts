// What helix prints never carries control sequences from text it did not write: bead fields, ids,
// notes, agent output, file names. A bead title must not clear the screen, retitle the window,
// write the clipboard (OSC 52) or hide a line behind a carriage return. Every control character
// that could start or shape such a sequence — C0 but tab and newline, a CR not ending a line, DEL,
// C1 (U+0080–U+009F: a UTF-8 terminal may read U+009B as CSI) and the bidirectional overrides — is
// shown as a visible `\uXXXX` instead. Without its introducer an escape sequence is inert text,
// and the same form is a valid escape inside a JSON string, so `--json` output stays valid JSON.

// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]|\r(?!\n)/;
const UNPRINTABLE_ALL = new RegExp(UNPRINTABLE.source, 'g');

const visible = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with every control character shown as `\uXXXX`; unchanged (and not copied) when it has none. */
export function printable(text: string): string {
  return UNPRINTABLE.test(text) ? text.replace(UNPRINTABLE_ALL, visible) : text;
}
