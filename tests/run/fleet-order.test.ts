// With several slots the longer work starts first (issue 38 item 3, docs/contract/cli.md §6.2): a
// bead its own verify command may refute — it may be repeated — and the head of a chain go before
// beads that are done in one attempt, so no slot idles at the end of a night while one bead's
// repeats run alone. Read from the run's own event log: the order the beads were claimed in.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bead } from '../helpers/bead.js';
import { standinTarget } from '../ddx/targets.js';

describe('--jobs 2: which beads start first', () => {
  it('the bead that may be repeated and the head of a chain, before the beads queued ahead of them', () => {
    const dep = (id: string, on: string) => ({ dependencies: [{ issue_id: id, depends_on_id: on, type: 'blocks' }] });
    // queue order: four single beads, then a chain head with one bead waiting on it, then the refutable bead last
    const beads = [
      ...['a', 'b', 'c', 'd'].map((x, i) => bead({ id: `hx-0000000${i + 1}`, title: `write work/${x}.txt`, description: `Create work/${x}.txt.` })),
      bead({ id: 'hx-00000005', title: 'write work/head.txt', description: 'Create work/head.txt.' }),
      bead({ id: 'hx-00000006', title: 'write work/tail.txt', description: 'Create work/tail.txt.', ...dep('hx-00000006', 'hx-00000005') }),
      bead({ id: 'hx-00000007', title: 'write work/risky.txt', description: 'Create work/risky.txt.', verify: 'test -f work/risky.txt' }),
    ];
    const p = standinTarget('current').project(beads);
    const file = (id: string) => /work\/\w+\.txt/.exec(beads.find((b) => b.id === id)!.title)![0];
    p.script({ responses: [], defaults: Object.fromEntries(beads.map((b) => [b.id, { delayMs: 300, commit: { path: file(b.id), content: `${b.id}\n` } }])) });
    writeFileSync(join(p.root, '.gitignore'), '.ddx/agent-logs/\n.ddx/executions/\n');
    spawnSync('git', ['add', '.gitignore'], { cwd: p.root });
    spawnSync('git', ['commit', '-qm', "DDx's runtime ignores"], { cwd: p.root });
    const r = p.helix(['run', '--summary', '--jobs', '2', '--no-auto-align']);
    expect(r.status, r.stderr).toBe(0);
    const logs = join(p.root, '.helix-logs');
    const events = readdirSync(logs).filter((f) => f.endsWith('.events.ndjson')).flatMap((f) => readFileSync(join(logs, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; bead?: string }));
    const claimed = events.filter((e) => e.type === 'claim').map((e) => e.bead);
    // the first two slots: the refutable bead, then the chain's head; the queue's own order after them
    expect(claimed.slice(0, 2)).toEqual(['hx-00000007', 'hx-00000005']);
    for (const b of beads) expect(p.bead(b.id).status).toBe('closed');
  });
});
