// Token accounting from text output, the fallback when a call printed no structured usage
// (agent-output.ts reads codex's --json and claude's stream-json usage). Plain `codex exec` ends
// with a `tokens used` line and the count on the next line (`1,234`), on stdout or stderr
// depending on version, so the runner hands us both streams combined. execute-bead reports
// `tokens` in its JSON result instead.
import { isInvalidExecuteBeadResult, parseExecuteBeadResult } from './execute-bead-result.js';

const TOKENS_USED = /tokens used\b[\s:]*(\d[\d,]*)?\s*$/i;
const COUNT_LINE = /^\s*(\d[\d,]*)\s*$/;

/** The last `tokens used` count in the output, else execute-bead's JSON `tokens`, else 0. */
export function extractTokens(output: string): number {
  const lines = output.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const marker = TOKENS_USED.exec(lines[i] ?? '');
    if (!marker) continue;
    const count = marker[1] ? marker[1] : COUNT_LINE.exec(lines[i + 1] ?? '')?.[1];
    if (count) return Number(count.replace(/,/g, ''));
  }
  const result = parseExecuteBeadResult(output);
  if (result && !isInvalidExecuteBeadResult(result) && result.tokens !== undefined) return result.tokens;
  return 0;
}
