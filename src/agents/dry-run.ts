// `--dry-run` prints the exact command helix would run as one line a person can paste into bash
// (docs/contract/cli.md §8). Every word is quoted so bead titles and prompts with `$(…)`, backticks or quotes
// stay inert text; newlines use bash's $'…' form so the command stays on one line.
import type { AgentInvocation } from './invocation.js';

const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one word for bash: plain words as-is, else '…', or $'…' when it holds control characters. */
export function shellQuote(word: string): string {
  if (word !== '' && PLAIN_WORD.test(word)) return word;
  // eslint-disable-next-line no-control-regex
  if (!/[\x00-\x1f\x7f]/.test(word)) return `'${word.replace(/'/g, `'\\''`)}'`;
  let quoted = '';
  for (const ch of word) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '\\') quoted += '\\\\';
    else if (ch === "'") quoted += "\\'";
    else if (ch === '\n') quoted += '\\n';
    else if (ch === '\t') quoted += '\\t';
    else if (ch === '\r') quoted += '\\r';
    else if (code < 0x20 || code === 0x7f) quoted += `\\x${code.toString(16).padStart(2, '0')}`;
    else quoted += ch;
  }
  return `$'${quoted}'`;
}

/**
 * The command as one shell line: `[cd <root> && ][VAR=value …] <file> <args…>[ <<< <stdin>]`.
 * claude's line starts `cd <root> && claude -p …` and shows its stdin prompt as a here-string.
 */
export function formatDryRun(invocation: AgentInvocation): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(invocation.env)) parts.push(`${name}=${shellQuote(value)}`);
  parts.push(shellQuote(invocation.file), ...invocation.args.map(shellQuote));
  let line = parts.join(' ');
  if (invocation.input !== undefined) line += ` <<< ${shellQuote(invocation.input)}`;
  return invocation.showCwd ? `cd ${shellQuote(invocation.cwd)} && ${line}` : line;
}
