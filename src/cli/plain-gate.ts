// `helix gate` without commander, as current DDx runs it once an attempt: the line helix's check file
// writes (`gate`, or `gate --events <log>`) is served from its own bundle (dist/fast/gate.js,
// scripts/bundle.mjs), which loads the gate and nothing of the other commands. With several slots
// a night starts the gate dozens of times, and commander and the full CLI's wiring were most of its
// cost (issue 38). Any other line — `--help`, another flag — goes through the full CLI.
import { withFdOutput } from './fd-output.js';

/** The run of a plain gate line (the arguments after `helix`), or undefined for the full CLI. */
export function plainGate(argv: string[]): (() => Promise<void>) | undefined {
  if (argv[0] !== 'gate') return undefined;
  const plain = argv.length === 1 || (argv.length === 3 && argv[1] === '--events' && argv[2] !== undefined && !argv[2].startsWith('-'));
  if (!plain) return undefined;
  const events = argv[2];
  return () => withFdOutput(async (ctx) => (await import('../supervisor/shell/gate.js')).runGate(ctx.env, events ? { events } : {}));
}
