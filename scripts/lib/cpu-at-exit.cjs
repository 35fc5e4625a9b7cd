// Loaded into every node process of one bench:fleet pass (`--cpu-by-process`, through NODE_OPTIONS):
// at its exit a process appends its own CPU (process.resourceUsage: user + system) and which
// program it was to the file BENCH_CPU_LOG names — helix's run and gates, the DDx stand-in, the
// stand-in agent — so the bench can say where a bead's CPU goes (issue 38 item 4). What no node
// process recorded (git, sh, a process killed before its exit) is the remainder.
'use strict';
const { appendFileSync } = require('node:fs');

const file = process.env.BENCH_CPU_LOG;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const line = { script: process.argv[1] ?? '', command: process.argv[2] ?? '', cpu_ms: (usage.userCPUTime + usage.systemCPUTime) / 1000 };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // a full disk or a removed folder: the bench counts this process in the remainder
    }
  });
}
