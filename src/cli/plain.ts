// The commands bin/helix serves without commander when their arguments are plain — the command's
// words and known flags that take no value: `tracker ready|blocked` (the hot reads of scripts and
// the supervisor's callers), `status` (what harnesses poll) and `next`. Commander and the wiring
// of every command cost a fast read more than its work; anything else — `--help`, a flag with a
// value, an unknown flag, a positional — goes through the full CLI (src/cli/main.ts), which prints
// exactly the same for the same question (tests/cli/fast-read.test.ts).

/** The common agent flags: accepted and ignored by these commands, as by the full CLI. */
const IGNORED = new Set(['--quiet', '-q', '--summary', '-s', '--dry-run', '--claude', '--codex']);

interface PlainCommand {
  words: string[];
  flags: string[];
  run(has: (flag: string) => boolean): Promise<void>;
}

import { withFdOutput } from './fd-output.js';

/** The tracker reads write to the file descriptors themselves (tracker-read.ts says why). */
async function trackerRead(kind: 'ready' | 'blocked', has: (flag: string) => boolean): Promise<void> {
  const { blockedText, readyText, writeStdout, writeToFd } = await import('./tracker-read.js');
  // fd 2 directly, like stdout here: a closed stderr must not become an uncaught EPIPE
  const place = { cwd: process.cwd(), env: process.env, warn: (text: string) => writeToFd(2, text) };
  writeStdout(kind === 'ready' ? await readyText({ execution: has('--execution'), json: has('--json') }, place) : await blockedText({ json: has('--json') }, place));
}

const PLAIN: PlainCommand[] = [
  { words: ['tracker', 'ready'], flags: ['--execution', '--json'], run: (has) => trackerRead('ready', has) },
  { words: ['tracker', 'blocked'], flags: ['--json'], run: (has) => trackerRead('blocked', has) },
  {
    words: ['status'],
    flags: ['--json'],
    run: (has) => withFdOutput(async (ctx) => (await import('./commands/status.js')).statusRun(ctx, { json: has('--json') })),
  },
  { words: ['next'], flags: [], run: () => withFdOutput(async (ctx) => (await import('./commands/next.js')).nextRun(ctx)) },
];

/** The run of a plain command line (the arguments after `helix`), or undefined for the full CLI. */
export function plainCommand(argv: string[]): (() => Promise<void>) | undefined {
  for (const command of PLAIN) {
    if (!command.words.every((word, i) => argv[i] === word)) continue;
    const flags = argv.slice(command.words.length);
    if (!flags.every((flag) => command.flags.includes(flag) || IGNORED.has(flag))) return undefined;
    return () => command.run((flag) => flags.includes(flag));
  }
  return undefined;
}
