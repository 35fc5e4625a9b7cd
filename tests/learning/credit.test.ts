// One truth for credit (issue 31, item 9): the run's `memory_credited` event says what the memory
// store recorded for each injected memory, not only how the attempt ended. A green run whose agent
// used one memory of three credits that one as helping and the other two as not helping (they
// applied and were not used) — the event must say so, as `helix memory show` does.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LOAD, Project, RUN, TWICE, WEBHOOK_BEAD, WINDOWS } from './memory-project.js';

describe('memory_credited', () => {
  it('names what the store recorded for each injected memory: helped, failed, left alone', async () => {
    const p = new Project();
    const [windows, load, twice] = await p.remember(WINDOWS, LOAD, TWICE);
    const id = p.bead(WEBHOOK_BEAD);
    p.script([{ when: 'execute-bead', stdout: `UTILIZED: ["${twice}"]\n`, result: {} }]);

    const run = p.helix(RUN);
    expect(run.status, run.stderr).toBe(0);
    const counts = p.counts();
    expect(counts[twice!]).toMatchObject({ helped: 0.5, failed: 0 });
    expect(counts[windows!]).toMatchObject({ helped: 0, failed: 0.5 });
    // what `helix memory show` says of one the event calls a success
    expect(p.helix(['memory', 'show', windows!]).stdout).toMatch(/helped 0, failed 0\.5/);

    const state = JSON.parse(p.helix(['status', '--json']).stdout) as { run: { events: string } };
    const credited = readFileSync(state.run.events, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((e) => e.type === 'memory_credited');
    expect(credited).toMatchObject({ bead: id, outcome: 'success', helped: [twice], left_alone: [] });
    expect([...((credited?.failed as string[]) ?? [])].sort()).toEqual([windows, load].sort());
  });
});
