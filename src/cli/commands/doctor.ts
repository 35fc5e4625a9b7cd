// `helix doctor [--fix]`: prints the check rows src/supervisor/shell/doctor.ts computes — the Bash CLI's
// header, sections and `Result:` line (docs/contract/bash-interface.md §18) — or the JSON report,
// and exits with the code the library decides.
import type { DoctorFacts, DoctorRow } from '../../supervisor/shell/doctor.js';
import type { CommandResult } from '../../supervisor/shell/output.js';
import { type CommandContext, type HelixCommand, NO_AGENT_FLAGS, finishWith, printJson, withCommonFlags } from '../program.js';
import { plural } from '../../numbers.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  withCommonFlags(program.command('doctor').description('tracker integrity, tools on PATH, skill links'), NO_AGENT_FLAGS)
    .option('--fix', 'repair the tracker file (after a backup) and helix\'s own skill links')
    .option('--json', 'JSON report')
    .action(async (o: { fix?: boolean; json?: boolean }) => finishWith(ctx.io, await doctorRun(ctx, { fix: Boolean(o.fix), json: Boolean(o.json) })));
}

export async function doctorRun(ctx: CommandContext, options: { fix: boolean; json: boolean }): Promise<CommandResult> {
  const doctor = await import('../../supervisor/shell/doctor.js');
  const facts = await doctor.gatherDoctorFacts({ cwd: ctx.cwd, env: ctx.env, fix: options.fix, toolVersions: !options.json });
  const exitCode = doctor.doctorExitCode(facts, options.json);
  if (options.json) {
    printJson(ctx.io, doctor.doctorJson(facts));
    return { exitCode };
  }
  const rows = doctor.doctorRows(facts);
  return { exitCode, stdout: reportLines(facts, rows, doctor.countMarks(rows), doctor.fixedCount(facts)) };
}

const SYMBOL = { ok: '✓', fail: '✗', warn: '-' } as const;

/** A check line: `  ✓  <name padded to 12> <detail>` (✗ failure, - warning). */
function rowLines(row: DoctorRow): string[] {
  if (row.kind === 'section') return ['', row.title];
  if (row.kind === 'detail') return [row.text];
  return [row.name === undefined ? `  ${SYMBOL[row.mark]}  ${row.detail}` : `  ${SYMBOL[row.mark]}  ${row.name.padEnd(12)} ${row.detail}`];
}

function reportLines(facts: DoctorFacts, rows: DoctorRow[], marks: { ok: number; warn: number; fail: number }, fixed: number): string[] {
  const lines = ['HELIX Doctor', '============', '', `Version:  helix ${facts.version}`, `Root:     ${facts.helixRoot.replace(/\/$/, '')}`];
  if (facts.fix) lines.push('Mode:     --fix (will auto-repair)');
  lines.push(...rows.flatMap(rowLines), '');
  if (fixed > 0) lines.push(`Fixed: ${plural(fixed, 'item')} repaired`);
  if (marks.fail > 0) {
    lines.push(`Result: ${marks.ok} ok, ${marks.warn} warnings, ${marks.fail} FAILURES`);
    if (!facts.fix) lines.push('Hint: run "helix doctor --fix" to auto-repair');
  } else {
    lines.push(`Result: ${marks.ok} ok, ${marks.warn} warnings — ready to go`);
  }
  return lines;
}
