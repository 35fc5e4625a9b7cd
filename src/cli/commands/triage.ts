// `helix triage "Title" [create flags]`: `tracker create` with the Bash CLI's defaults
// (docs/contract/bash-interface.md §13); its help is the create help.
import { HelixError } from '../../errors.js';
import { titleRequired } from '../../supervisor/text/lines.js';
import { type CommandContext, type HelixCommand, NO_AGENT_FLAGS, withCommonFlags } from '../program.js';
import { createFromFlags, withCreateFlags } from './tracker.js';

/** Build, deploy and iterate work is buildable; anything else a triaged bead is not, unless told (§13.1). */
const BUILD_PHASES = ['phase:build', 'phase:deploy', 'phase:iterate'];

/** The flags `triage` adds to `tracker create` (the Bash CLI's `helix triage`). */
function withTriageFlags(command: HelixCommand): HelixCommand {
  return command
    .option('--design <text>', 'design notes')
    .option('--execution-eligible <bool>', 'true or false (default: true with a phase:build, phase:deploy or phase:iterate label)')
    .option('--superseded-by <id>', 'the bead that replaces this one')
    .option('--replaces <id>', 'the bead this one replaces')
    .option('--silent', 'accepted for compatibility; no effect') as HelixCommand;
}

/** `triage` flags as create fields: `execution-eligible` is always written (§13.1). */
function triageFields(o: Record<string, string | string[] | boolean | undefined>): Record<string, string | string[] | undefined> {
  const text = (key: string) => (typeof o[key] === 'string' ? (o[key] as string) : undefined);
  const given = text('executionEligible');
  if (given !== undefined && given !== 'true' && given !== 'false') {
    throw new HelixError('validation', `helix: --execution-eligible expects true or false, got '${given}'`);
  }
  const labels = (text('labels') ?? '').split(',').map((l) => l.trim());
  const eligible = given ?? String(labels.some((l) => BUILD_PHASES.includes(l)));
  const set = [...(Array.isArray(o.set) ? o.set : []), `execution-eligible=${eligible}`];
  for (const [flag, key] of [['design', 'design'], ['supersededBy', 'superseded-by'], ['replaces', 'replaces']] as const) {
    const value = text(flag);
    if (value) set.push(`${key}=${value}`);
  }
  const fields: Record<string, string | string[] | undefined> = {};
  for (const [key, value] of Object.entries(o)) if (typeof value === 'string') fields[key] = value;
  return { ...fields, set };
}

export function register(program: HelixCommand, ctx: CommandContext): void {
  withTriageFlags(withCreateFlags(withCommonFlags(program.command('triage').description('Create a new bead'), NO_AGENT_FLAGS), { titleOptional: true })).action(
    async (title: string | undefined, o: Record<string, string | string[] | boolean | undefined>) => {
      if (!title) throw new HelixError('error', titleRequired);
      const bead = await createFromFlags(ctx, title, triageFields(o));
      const { trackerDir } = await import('../../tracker/tracker-dir.js');
      const { countSupervisoryInjection } = await import('../../supervisor/shell/run-state.js');
      countSupervisoryInjection(trackerDir(ctx.cwd, ctx.env), Array.isArray(bead.labels) ? bead.labels : []);
      ctx.io.stdout(`${bead.id}\n`);
    },
  );
}
