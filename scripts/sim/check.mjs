// The learning simulation's verification. Each bead's `verify` command is `sim-check <family>`,
// run by `helix run` in the project after each attempt. `sim-check` is a POSIX shell script
// written by the engine from the families below (a shell script, not node: it runs after every
// attempt, and a node start would double the simulation's time). It passes when the family's
// config file sets its setting to the world's current truth — read from $SIM_WORLD, a file
// outside the project that the agent never reads — and otherwise fails with one line saying what
// it saw, the way a service's startup check would. The wording avoids the words helix files
// failures under (timeout, not found, …), so no run stops as SYSTEMIC_FAILURE.

const quote = (text) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The `sim-check` script for these families. */
export function checkScript(families) {
  const cases = families.map((f) => `  ${f.key}) file=${quote(f.file)}; setting=${quote(f.setting)}; service=${quote(f.service)} ;;`);
  return `#!/bin/sh
# sim-check <family>: the learning simulation's verification (written by scripts/sim/engine.mjs).
case "$1" in
${cases.join('\n')}
  *) echo "sim-check: unknown family $1" >&2; exit 2 ;;
esac
expected=$(sed -n "s/^$1=//p" "$SIM_WORLD")
value=$(sed -n "s/^[[:space:]]*$setting[[:space:]]*=[[:space:]]*\\([^[:space:]]*\\)[[:space:]]*$/\\1/p" "$file" 2>/dev/null | head -n 1)
if [ -z "$value" ]; then echo "$file: $setting is missing"; exit 1; fi
if [ "$value" != "$expected" ]; then echo "$file: $setting = $value is rejected by $service"; exit 1; fi
echo "$file: $setting accepted"
`;
}

/** The world file the check (and an investigating agent) reads: `family=value` lines. */
export const worldText = (current) => `${Object.entries(current).map(([k, v]) => `${k}=${v}`).join('\n')}\n`;

export function readWorld(text) {
  return Object.fromEntries(text.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}
