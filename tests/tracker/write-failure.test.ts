// A write that fails part-way (disk full, file-size limit) must leave the previous file intact,
// say so clearly, and exit with the writeFailed code. RLIMIT_FSIZE stands in for a full disk:
// with SIGXFSZ ignored, writes past the limit fail with EFBIG exactly as they would with ENOSPC.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from '../../src/errors.js';
import { HELIX_BIN, cleanEnv, tempGitRepo } from '../helpers/cli.js';

describe('a write that cannot complete', () => {
  it('exits with writeFailed, names the file, and leaves the previous file and no temp file behind', () => {
    const root = tempGitRepo();
    const dir = join(root, '.ddx');
    mkdirSync(dir);
    const stamp = '2026-01-01T00:00:00Z';
    const lines = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({ id: `hx-${String(i).padStart(8, '0')}`, title: `bead number ${i} with a title long enough to matter`, status: 'open', priority: 2, issue_type: 'task', created_at: stamp, updated_at: stamp }),
    );
    const before = `${lines.join('\n')}\n`;
    writeFileSync(join(dir, 'beads.jsonl'), before);
    expect(before.length).toBeGreaterThan(4096);

    // 4 KiB file-size limit: the lock's small files fit, the rewritten bead file does not
    const script = `trap '' XFSZ; ulimit -f 4; exec node ${JSON.stringify(HELIX_BIN)} tracker update hx-00000003 --title renamed`;
    const r = spawnSync('bash', ['-c', script], { cwd: root, env: cleanEnv(), encoding: 'utf8' });

    expect(r.status).toBe(EXIT.writeFailed);
    expect(r.stderr).toMatch(/^bead: could not write .*beads\.jsonl: .*the previous file is unchanged\n$/);
    expect(readFileSync(join(dir, 'beads.jsonl'), 'utf8')).toBe(before);
    expect(readdirSync(dir).filter((name) => name.includes('.tmp-') || name === 'beads.lock')).toEqual([]);
  });
});
