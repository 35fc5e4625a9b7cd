// `helix gate`: helix's verification as current DDx's pre-merge check (docs/ddx.md#verified-before-it-lands).
// Not a command for people: DDx runs it through the check helix installs before `ddx try`, so the
// general usage leaves it out; its own `--help` says what it reads and writes.
import { type CommandContext, type HelixCommand, NO_AGENT_FLAGS, finishWith, withCommonFlags } from '../program.js';

const HELP = `Runs as DDx's pre-merge check (.ddx/checks/helix-verify.yaml, written by helix run / helix build on
current DDx). Reads BEAD_ID, DIFF_BASE, DIFF_HEAD, PROJECT_ROOT, EVIDENCE_DIR and CHECK_NAME from its
environment; checks DIFF_HEAD out in a worktree of its own (the project's ignored node_modules,
.venv, venv and vendor linked in), runs the bead's verify command there (its verify field, else
HELIX_VERIFY_CMD) and writes {"status": "pass" | "block" | "infra", "message"} to
$EVIDENCE_DIR/$CHECK_NAME.json: block keeps the attempt off the branch; infra (the gate itself could
not run) lets DDx land it for helix to verify after landing. Exit 0 with a verdict written; 7 without
DDx's environment. --events <path>: the run's event log (docs/events.md), where the gate appends its
phase and its verdict.
`;

export function register(program: HelixCommand, ctx: CommandContext): void {
  withCommonFlags(program.command('gate').description("verify a DDx attempt's tree before DDx lands it (DDx's pre-merge check; not run by hand)"), NO_AGENT_FLAGS)
    .withHelpSection(HELP)
    .option('--events <path>', "the run's event log: the gate appends its phase and verdict there")
    .action(async (o: { events?: string }) => {
      const { runGate } = await import('../../supervisor/shell/gate.js');
      finishWith(ctx.io, await runGate(ctx.env, o.events ? { events: o.events } : {}));
    });
}
