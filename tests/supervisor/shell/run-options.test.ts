// What the command entry points share (shell/run-options.ts): the line for an interrupt before
// anything started, and the exact build command a --dry-run prints — its prompt with the project's
// context, and the placeholder of an empty queue printed bare, as the Bash CLI printed it.
import { describe, expect, it } from 'vitest';
import { interruptedBeforeStart, printBuildCommand } from '../../../src/supervisor/shell/run-options.js';
import { prepareSession } from '../../../src/supervisor/shell/agent-setup.js';
import { bead } from '../../helpers/bead.js';
import { agentProject } from './run-world.js';

describe('interruptedBeforeStart', () => {
  it("returns the interrupt's exit code and its one line", () => {
    expect(interruptedBeforeStart({ what: 'SIGTERM', exitCode: 143, cause: 'SIGTERM' })).toEqual({ exitCode: 143, stderr: ['helix: interrupted by SIGTERM before the run started; nothing was changed'] });
  });
});

describe('printBuildCommand', () => {
  it("prints the agent's command with the bead's implementation prompt and the queue's context", async () => {
    const target = bead({ id: 'hx-1', title: 'Parse the header' });
    const project = agentProject({ beads: [target, bead({ id: 'hx-2' })] });
    const session = await prepareSession(project.root, project.env, {}, false);
    const { exitCode, stdout } = printBuildCommand(session, project.env, target, project.beads(), project.beads());
    expect(exitCode).toBe(0);
    expect(stdout).toHaveLength(1);
    expect(stdout![0]).toMatch(/^codex --dangerously-bypass-approvals-and-sandbox exec /);
    expect(stdout![0]).toContain('hx-1');
    expect(stdout![0]).toContain('Issue counts: ready=2, open=2');
  });

  it("prints the empty queue's placeholder bare, not quoted", async () => {
    const project = agentProject();
    const session = await prepareSession(project.root, project.env, {}, false);
    const placeholder = bead({ id: '<ready-bead>', title: '?' });
    const [line] = printBuildCommand(session, project.env, placeholder, [], []).stdout!;
    expect(line).toContain(' <ready-bead>');
    expect(line).not.toContain("'<ready-bead>'");
  });
});
