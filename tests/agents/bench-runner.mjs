// Measures the agent layer's own cost per call (not a test; timing goals never go in unit tests).
// Run after `npx tsc -p tsconfig.build.json`:  node tests/agents/bench-runner.mjs
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const here = import.meta.dirname;
const { runAgentInvocation, executeBeadInvocation } = await import(resolve(here, '../../dist/agents/index.js'));
const cwd = mkdtempSync(join(tmpdir(), 'helix-bench-agents-'));
spawnSync('git', ['init', '-q'], { cwd });
spawnSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '--allow-empty', '-m', 'i'], { cwd });

const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function time(label, runs, f) {
  const xs = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await f();
    xs.push(performance.now() - t);
  }
  console.log(`${label}: median ${median(xs).toFixed(1)} ms over ${runs} runs`);
}

await time('runAgentInvocation /bin/true', 50, () => runAgentInvocation({ file: 'true', args: [], cwd, env: {} }));
await time("spawnSync('true') for comparison", 50, () => spawnSync('true'));
const env = { ...process.env, PATH: `${resolve(here, '../stubs')}:${process.env.PATH}`, HELIX_STUB_HELIX: 'true' };
await time('stub ddx execute-bead (default result)', 20, () => runAgentInvocation(executeBeadInvocation({ root: cwd, beadId: 'hx-1' }), { env }));
