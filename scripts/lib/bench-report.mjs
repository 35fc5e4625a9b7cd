// Pure parts of `npm run bench` (scripts/bench.mjs): which commit the figures belong to, and the
// markdown of docs/benchmarks.md. No I/O here, so tests/bench-report.test.ts can pin the format.

/**
 * The commit the figures were measured on: the short hash, plus "+dirty" when `git status
 * --porcelain` lists anything but the report itself (rewriting the report is not a code change).
 */
export function commitLabel(shortHash, porcelain, reportPath) {
  const changed = porcelain
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => line.slice(3).replace(/^"|"$/g, ''))
    .filter((path) => path !== reportPath);
  return changed.length ? `${shortHash}+dirty` : shortHash;
}

/**
 * A benchmark script's stdout as markdown: its tables kept as printed, every other line a bullet
 * (the scripts print one figure a line), blocks separated by a blank line; the checkout's own path
 * shown as `.` so the report does not name the machine's folders.
 */
export function renderOutput(stdout, root) {
  const lines = stdout.split(root).join('.').split('\n').map((line) => line.trimEnd()).filter(Boolean);
  const blocks = [];
  for (const line of lines) {
    const kind = line.startsWith('|') ? 'table' : 'text';
    const last = blocks.at(-1);
    if (last && last.kind === kind) last.lines.push(line);
    else blocks.push({ kind, lines: [line] });
  }
  return blocks.map((block) => (block.kind === 'table' ? block.lines : block.lines.map((line) => `- ${line}`)).join('\n')).join('\n\n');
}

/**
 * docs/benchmarks.md. `run` is { date, commit, machine: { cpus, cpuModel, memoryGiB, node, os },
 * command, sections: [{ title, command, seconds, load, status, stdout, stderr }] }.
 */
export function renderReport(run, root) {
  const { machine } = run;
  const out = [
    '# Benchmarks',
    '',
    `Written by \`${run.command}\`; do not edit by hand — rerun it. Each section names the command`,
    'that produced its figures; rerun that command alone to check one. Figures move with the',
    "machine's load: compare them with the `node -e ''` floor printed beside them.",
    '',
    `- date: ${run.date}`,
    `- commit: ${run.commit}`,
    `- machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, ${machine.os}`,
    `- node: ${machine.node}`,
  ];
  for (const section of run.sections) {
    out.push('', `## ${section.title}`, '', `\`${section.command}\` — ${section.seconds.toFixed(0)} s, load average ${section.load.toFixed(2)} at the start`);
    if (section.status !== 0) {
      const stderr = section.stderr.split(root).join('.').trim();
      out.push('', `**Exited ${section.status}**: a target below was missed, or the script failed${stderr ? '; the end of its stderr:' : '.'}`);
      if (stderr) out.push('', '```text', ...stderr.split('\n').slice(-15), '```');
    }
    const rendered = renderOutput(section.stdout, root);
    if (rendered) out.push('', rendered);
  }
  return `${out.join('\n')}\n`;
}
