// What is left of a claimer (shell/claimer-calls.ts): an agent call started with withProcessTag
// carries this process's tag, and claimerCallsGone sees it in /proc while it runs and not after it
// is killed — real child processes, waited for by their own spawn and exit events.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { processTagOf } from '../../../src/agents/descendants.js';
import { claimerCallsGone, processTag, tagGone, withProcessTag } from '../../../src/supervisor/shell/claimer-calls.js';
import { processStartOf } from '../../../src/tracker/liveness.js';

async function started(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn('sleep', ['60'], { env, stdio: 'ignore' });
  await once(child, 'spawn');
  return child;
}

describe('the calls of a claimer', () => {
  it("a call's environment gains this process's tag after the tags of the calls around it", () => {
    const start = processStartOf(process.pid)!;
    expect(processTag()).toBe(processTagOf(process.pid, start));
    expect(withProcessTag({ PATH: '/bin', HELIX_CALL_ID: 'outer' })).toEqual({ PATH: '/bin', HELIX_CALL_ID: `outer:${processTag()}` });
  });

  it("a live call of this process is seen; once it is killed, the claimer's calls are gone", async () => {
    const start = processStartOf(process.pid)!;
    expect(claimerCallsGone(process.pid, start)).toBe(true);
    const child = await started(withProcessTag({ PATH: process.env.PATH }));
    try {
      expect(claimerCallsGone(process.pid, start)).toBe(false);
      expect(tagGone(processTag()!)).toBe(false);
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    expect(claimerCallsGone(process.pid, start)).toBe(true);
  });

  it('a process without the tag does not count as a call of the claimer', async () => {
    const child = await started({ PATH: process.env.PATH, HELIX_CALL_ID: 'helix-1-other' });
    try {
      expect(tagGone(processTag()!)).toBe(true);
      expect(tagGone('helix-1-other')).toBe(false);
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });
});
