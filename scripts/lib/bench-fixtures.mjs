// The generated projects the benchmarks run against, one definition each so every script that
// times the same command times it on the same data: a backlog-shaped bead file (bench-tracker,
// bench-start) and a live project with a run-state (bench-status, bench-start).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A small deterministic PRNG so every run benchmarks the same files. */
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A bead file shaped like a real backlog: ~40% closed, ~5% in progress, the rest open; most beads
 * depend on 0–3 earlier ones; labels, descriptions, HELIX extras and a foreign key on some.
 * Returns the text and the id of one open bead with no dependencies (the one to claim).
 */
export function backlogFile(count, seed = 42) {
  const rand = random(seed);
  const ids = [];
  const lines = [];
  let claimable;
  const base = Date.parse('2025-01-01T00:00:00Z');
  for (let i = 0; i < count; i++) {
    const id = `bn-${(i * 2654435761 >>> 0).toString(16).padStart(8, '0')}`;
    const r = rand();
    const status = r < 0.4 ? 'closed' : r < 0.45 ? 'in_progress' : 'open';
    const created = new Date(base + i * 1000 + Math.floor(rand() * 1000)).toISOString();
    const bead = {
      id,
      title: `Bead ${i}: implement part ${i % 97} of feature ${i % 13}`,
      status,
      priority: Math.floor(rand() * 5),
      issue_type: rand() < 0.1 ? 'epic' : 'task',
      created_at: created,
      updated_at: created,
      labels: [`area:${i % 7}`, 'helix'],
      description: `Description of bead ${i}. `.repeat(3),
    };
    const deps = [];
    const depCount = i === 0 ? 0 : Math.floor(rand() * 4);
    for (let d = 0; d < depCount; d++) {
      const target = ids[Math.floor(rand() * ids.length)];
      if (!deps.includes(target)) deps.push(target);
    }
    if (deps.length) bead.dependencies = deps.map((dep) => ({ issue_id: id, depends_on_id: dep, type: 'blocks', created_at: created }));
    if (rand() < 0.2) bead['spec-id'] = `FEAT-${i % 50}`;
    if (rand() < 0.05) bead['execution-eligible'] = false;
    if (rand() < 0.1) bead['x-ddx-meta'] = { attempts: i % 3, source: 'bench' };
    if (status === 'in_progress') Object.assign(bead, { owner: 'helix', 'claimed-at': created, 'claimed-pid': '1' });
    if (status === 'open' && deps.length === 0 && !claimable) claimable = id;
    ids.push(id);
    lines.push(JSON.stringify(bead));
  }
  lines.sort(); // the tracker keeps its file sorted by id
  return { text: `${lines.join('\n')}\n`, claimable };
}

/**
 * A project shaped like a live one: open, closed, blocked (by dependency and by label), parked for
 * retry, a stale claim and a live one, review findings with their TRIGGERING markers, and the
 * run-state a run leaves.
 */
export function liveProject(dir, count) {
  const ddx = join(dir, '.ddx');
  mkdirSync(ddx, { recursive: true });
  const base = Date.parse('2026-01-01T00:00:00Z');
  const lines = [];
  for (let i = 0; i < count; i++) {
    const id = `bn-${(i * 2654435761 >>> 0).toString(16).padStart(8, '0')}`;
    const at = new Date(base + i * 60_000).toISOString();
    const bead = { id, title: `Bead ${i}`, status: i % 3 === 0 ? 'closed' : 'open', priority: i % 5, issue_type: i % 10 === 0 ? 'epic' : 'task', created_at: at, updated_at: at, labels: [`area:${i % 7}`, 'helix'] };
    if (i % 7 === 1 && i > 1) bead.dependencies = [{ issue_id: id, depends_on_id: lines.length ? JSON.parse(lines[0]).id : id, type: 'blocks', created_at: at }];
    if (i % 11 === 2) bead.labels.push('blocked');
    if (i % 13 === 3) bead['execute-loop-retry-after'] = '2999-01-01T00:00:00Z';
    if (i % 9 === 4) Object.assign(bead, { labels: [...bead.labels, 'review-finding', 'phase:build'], notes: `TRIGGERING_CYCLE=${i} TRIGGERING_BEAD=bn-00000000` });
    if (i === 5) Object.assign(bead, { status: 'in_progress', owner: 'helix', 'claimed-pid': String(process.pid), 'claimed-at': at });
    if (i === 6) Object.assign(bead, { status: 'in_progress', owner: 'helix', 'claimed-pid': '1', 'claimed-at': at });
    lines.push(JSON.stringify(bead));
  }
  lines.sort();
  writeFileSync(join(ddx, 'beads.jsonl'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(ddx, 'run-state.json'),
    JSON.stringify({ current_issue: null, focused_epic: null, completed_cycles: 12, attempted_cycles: 15, skipped_count: 1, total_tokens: 123456, stop_reason: 'blocked', last_run: '2026-01-02T00:00:00Z', agent: 'codex', log: join(dir, '.helix-logs', 'helix-20260102-000000.log') }),
  );
}
