// The terminal-output rule: no control sequence from bead or agent text reaches a terminal.
import { describe, expect, it } from 'vitest';
import { printable } from '../src/terminal-text.js';

describe('printable', () => {
  it.each([
    ['CSI clear screen', 'a\u001b[2Jb', 'a\\u001b[2Jb'],
    ['OSC window title', '\u001b]0;pwned\u0007', '\\u001b]0;pwned\\u0007'],
    ['OSC 52 clipboard write', '\u001b]52;c;ZWNobyBwd25lZA==\u001b\\', '\\u001b]52;c;ZWNobyBwd25lZA==\\u001b\\'],
    ['C1 CSI', 'x\u009b31mred', 'x\\u009b31mred'],
    ['C1 OSC and ST', '\u009d0;t\u009c', '\\u009d0;t\\u009c'],
    ['DEL', 'a\u007fb', 'a\\u007fb'],
    ['backspace overwrite', 'safe\b\b\b\bevil', 'safe\\u0008\\u0008\\u0008\\u0008evil'],
    ['a lone CR hiding a line', 'rm -rf /\rls', 'rm -rf /\\u000dls'],
    ['bidi override', 'abc\u202edef', 'abc\\u202edef'],
    ['NUL', 'a\u0000b', 'a\\u0000b'],
  ])('%s is shown, not obeyed', (_name, text, shown) => {
    expect(printable(text)).toBe(shown);
  });

  it('keeps tabs, newlines, CRLF line ends and every other character as they are', () => {
    const text = 'tab\tline\nwindows\r\nunicode ═══ é 中文 🙂 \u200b';
    expect(printable(text)).toBe(text);
  });

  it('keeps JSON valid: a C1 character inside a string becomes a JSON escape of itself', () => {
    const json = JSON.stringify({ title: 'x\u009b2J\u001b[0m' });
    expect(JSON.parse(printable(json))).toEqual({ title: 'x\u009b2J\u001b[0m' });
  });
});
