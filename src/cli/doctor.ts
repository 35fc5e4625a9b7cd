// `helix doctor [--fix]` (contract §2): tracker integrity, the tools on PATH, and the skill links.
// `--fix` repairs only what is helix's own: the tracker file (backed up first) and helix's links.
import { EXIT } from '../errors.js';
import { type HelixCommand, printJson, withCommonFlags } from './program.js';

export function registerDoctorCommand(program: HelixCommand): void {
  withCommonFlags(program.command('doctor').description('tracker integrity, tools on PATH, skill links'))
    .option('--fix', 'repair the tracker file (after a backup) and helix\'s own skill links')
    .option('--json', 'JSON report')
    .action(async (o: { fix?: boolean; json?: boolean }) => {
      const { homedir } = await import('node:os');
      const { fileURLToPath } = await import('node:url');
      const t = await import('../tracker/index.js');
      const { claudeRootWarning, claudeWouldRefuse, describeDdx, detectDdx, findOnPath } = await import('../agents/index.js');
      const links = await import('../installer/skill-links.js');
      const store = new t.BeadStore(t.trackerDir());
      const facts = { now: new Date(), thresholdSec: t.orphanThresholdSec() };
      const helixRoot = fileURLToPath(new URL('../..', import.meta.url));
      const linkOptions = { home: process.env.HOME || homedir(), env: process.env, helixRoot };

      const fixed = o.fix ? t.fixStore(store, facts) : undefined;
      const repairs = o.fix ? links.repairSkillLinks(linkOptions) : [];
      const snapshot = store.read();
      const tracker = t.diagnose(snapshot.beads, snapshot.problems, facts);
      const tools = Object.fromEntries(['ddx', 'codex', 'claude', 'git'].map((name) => [name, findOnPath(name) ?? null]));
      const ddx = await detectDdx(process.env, process.cwd());
      const skillLinks = links.inspectSkillLinks(linkOptions);
      const launcher = links.inspectLauncher(linkOptions);
      const badLinks = skillLinks.filter((l) => l.state === 'missing' || l.state === 'broken');
      // Advice, not a failure: claude may never be used, and only the user can say the machine is disposable.
      const warnings = tools.claude && claudeWouldRefuse(process.getuid?.(), process.env) ? [`claude: ${claudeRootWarning()}`] : [];
      const report = {
        tracker,
        tools,
        ddx: ddx ? { version: ddx.version ?? null, surface: ddx.surface ?? null, path: ddx.path, supported: Boolean(ddx.surface) } : null,
        warnings,
        skill_links: skillLinks,
        launcher,
        fixed: fixed ?? null,
        repaired: repairs.filter((r) => r.action !== 'left'),
      };

      if (o.json) printJson(report);
      else {
        const lines = [`Tracker: ${store.file}`];
        lines.push(tracker.healthy ? `  ok: ${tracker.total} bead(s)` : `  ${tracker.problems.length} damaged line(s), ${tracker.dangling.length} dangling dependency(ies), ${tracker.cycles.length} cycle(s), ${tracker.stale_claims.length} stale claim(s), ${tracker.ddx_damage.length} field(s) DDx would damage`);
        for (const p of tracker.problems) lines.push(`  line ${p.line}: ${p.kind}: ${p.detail}`);
        for (const s of tracker.stale_claims) lines.push(`  stale claim: ${s.id} (age=${s.ageSec}s, pid=${s.pid ?? 'none'} ${s.why})`);
        for (const d of tracker.ddx_damage) lines.push(`  DDx would damage ${d.id}: ${d.problem}`);
        if (fixed?.backup) lines.push(`  fixed: backup ${fixed.backup}, ${fixed.quarantined} line(s) quarantined, ${fixed.released.length} claim(s) released`);
        for (const choice of fixed?.choices ?? []) lines.push(`  ${choice}`);
        lines.push('Tools:');
        for (const [name, path] of Object.entries(tools)) lines.push(`  ${name}: ${name === 'ddx' && path ? describeDdx(ddx) : (path ?? 'not on PATH')}`);
        for (const warning of warnings) lines.push(`  ${warning}`);
        if (!tools.ddx && !tools.codex && !tools.claude) lines.push('  no agent: install DDx (ddx agent execute-bead) or the codex / claude CLI for `helix run`');
        lines.push('Skill links:');
        lines.push(badLinks.length === 0 ? `  ok: ${skillLinks.filter((l) => l.state === 'ok').length} link(s)` : `  ${badLinks.length} missing or broken (run \`helix doctor --fix\` or \`helix install\`)`);
        for (const l of skillLinks.filter((x) => x.state !== 'ok')) lines.push(`  ${l.state}: ${l.target}${l.pointsTo ? ` -> ${l.pointsTo}` : ''}`);
        for (const r of report.repaired) lines.push(`  ${r.action}: ${r.target}`);
        lines.push(`Launcher: ${launcher.path} (${launcher.state})`);
        process.stdout.write(`${lines.join('\n')}\n`);
      }
      if (tracker.problems.length > 0) process.exitCode = EXIT.malformedStore;
      else if (!tracker.healthy || badLinks.length > 0) process.exitCode = EXIT.error;
    });
}
