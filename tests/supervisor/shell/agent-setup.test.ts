// Setting up a session (shell/agent-setup.ts) against real folders and real programs on PATH: outside a
// git work tree (23), a bad numeric setting (7) and a missing agent (11) are refused before the
// tracker is touched; the DDx found on PATH (the v0.6.1 and current stand-ins, asked `ddx version`
// as the real ones are) decides the build path.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareSession } from '../../../src/supervisor/shell/agent-setup.js';
import { tempDir, tempGitRepo } from '../../helpers/cli.js';

const STUBS = resolve(import.meta.dirname, '../../stubs');
const SYSTEM = '/usr/bin:/bin';

/** A folder on PATH holding these programs (the stubs: codex, claude; the DDx stand-ins: ddx-0.6.1, ddx-current). */
function bin(...programs: string[]): string {
  const dir = tempDir('helix-bin-');
  for (const program of programs) {
    const [name, from] = program.startsWith('ddx-') ? ['ddx', join(STUBS, program, 'ddx')] : [program, join(STUBS, program)];
    symlinkSync(from, join(dir, name));
  }
  return `${dir}:${SYSTEM}`;
}

function project(): string {
  const root = tempGitRepo();
  mkdirSync(join(root, '.ddx'));
  writeFileSync(join(root, '.ddx', 'beads.jsonl'), '');
  return root;
}

async function refusal(promise: Promise<unknown>): Promise<{ exitCode: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { exitCode: number; message: string };
  }
  throw new Error('the session was not refused');
}

describe('prepareSession', () => {
  it('refuses a folder outside any git work tree with 23, creating nothing', async () => {
    const dir = tempDir();
    const refused = await refusal(prepareSession(dir, { PATH: bin('codex') }, {}));
    expect(refused.exitCode).toBe(23);
    expect(refused.message).toBe(`helix: ${dir} is not inside a git work tree: run helix in your project's repository (or \`git init\` here first); nothing was created and no agent was called`);
    expect(existsSync(join(dir, '.ddx'))).toBe(false);
  });

  it('refuses a bad numeric setting with 7 before looking for any tool', async () => {
    // HELIX_ORPHAN_THRESHOLD is the user's setting under test
    const refused = await refusal(prepareSession(project(), { PATH: SYSTEM, HELIX_ORPHAN_THRESHOLD: 'soon' }, {}));
    expect(refused.exitCode).toBe(7);
    expect(refused.message).toContain('HELIX_ORPHAN_THRESHOLD');
  });

  it('without DDx or an agent on PATH it says what to install (11); a dry run still gets its session', async () => {
    const root = project();
    const refused = await refusal(prepareSession(root, { PATH: SYSTEM }, {}));
    expect(refused.exitCode).toBe(11);
    expect(refused.message.split('\n')).toEqual([
      expect.stringMatching(/^helix: cannot run agents: no DDx helix can drive is on PATH .*, and neither is `codex`\.$/),
      'helix: install DDx, or install the codex or claude CLI, and make sure it is on PATH;',
      'helix: choose the agent with --agent codex|claude or HELIX_AGENT. Nothing in the tracker was changed.',
    ]);
    const dry = await prepareSession(root, { PATH: SYSTEM }, {}, false);
    expect(dry).toMatchObject({ root, buildPath: 'direct', actionsViaDdx: false, ddxPresent: false, installedAgents: [] });
  });

  it('a named agent that is not installed is refused naming the ones that are', async () => {
    const refused = await refusal(prepareSession(project(), { PATH: bin('codex') }, { agent: 'claude' }));
    expect(refused.exitCode).toBe(11);
    expect(refused.message).toBe('helix: claude is not installed (`claude` is not on PATH): install it, or choose an installed agent (codex) with --agent or HELIX_AGENT. Nothing was claimed.');
  });

  it('with codex alone it calls codex directly, the agent chosen from what is installed', async () => {
    const session = await prepareSession(project(), { PATH: bin('codex') }, {});
    expect(session).toMatchObject({ buildPath: 'direct', actionsViaDdx: false, installedAgents: ['codex'], agentNamed: false });
    expect(session.plan.primary.agent).toBe('codex');
  });

  it("DDx v0.6.1 builds through execute-bead, current DDx through ddx try; both run the actions", async () => {
    const old = await prepareSession(project(), { PATH: bin('ddx-0.6.1') }, {});
    expect(old).toMatchObject({ buildPath: 'execute-bead', actionsViaDdx: true, ddxPresent: true });
    const current = await prepareSession(project(), { PATH: bin('ddx-current') }, {});
    expect(current).toMatchObject({ buildPath: 'try', actionsViaDdx: true, ddxPresent: true });
    expect(current.ddx?.surface).toBe('current');
  });

  it('HELIX_EXECUTOR=execute-loop is refused on DDx v0.6.1, which has no one-bead form of it', async () => {
    // HELIX_EXECUTOR is the user's choice under test
    const refused = await refusal(prepareSession(project(), { PATH: bin('ddx-0.6.1'), HELIX_EXECUTOR: 'execute-loop' }, {}));
    expect(refused.exitCode).toBe(1);
    expect(refused.message).toMatch(/^helix: HELIX_EXECUTOR=execute-loop needs DDx's `ddx try <id>`/);
  });

  it('HELIX_DIRECT_AGENT=1 keeps the actions off DDx, so an agent must be installed too', async () => {
    // HELIX_DIRECT_AGENT is the user's choice under test
    const refused = await refusal(prepareSession(project(), { PATH: bin('ddx-current'), HELIX_DIRECT_AGENT: '1' }, {}));
    expect(refused.exitCode).toBe(11);
    const session = await prepareSession(project(), { PATH: bin('ddx-current', 'claude'), HELIX_DIRECT_AGENT: '1' }, {});
    expect(session).toMatchObject({ buildPath: 'try', actionsViaDdx: false });
  });
});
