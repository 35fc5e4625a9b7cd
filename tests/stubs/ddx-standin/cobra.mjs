// Just enough of spf13/cobra v1.10.2 + pflag v1.0.10 (the versions DDx pins in cli/go.mod at
// both commits) for the stand-ins to fail the way DDx's command parser does:
//   - an unknown command under the root: cobra's legacyArgs error, printed by ExecuteC as
//     `Error: unknown command "X" for "ddx"` + `Run 'ddx --help' for usage.` (+ "Did you mean
//     this?" suggestions: Levenshtein ≤ 2 or a prefix), then printed again by DDx's main.go;
//   - flag errors from pflag (`unknown flag: --x`, `unknown shorthand flag: 'x' in -x`,
//     `flag needs an argument: --x`), printed as `Error: …`, then the usage unless the command
//     sets SilenceUsage, then DDx's main prints `Error: …` again; exit 1;
//   - flags are parsed before --help is looked at (execute(): ParseFlags, then helpVal);
//   - a group with a Run (`ddx agent …`) given an unknown subcommand just runs (prints help).

export class ExitError extends Error {
  constructor(code, message = '') {
    super(message);
    this.code = code;
  }
}

/** A command: { name, short, args: 'none'|'exact1'|'any'|'range01', flags, children, run, silenceUsage, persistentFlags } */
export function command(spec) {
  return { children: [], flags: {}, persistentFlags: {}, args: 'any', ...spec };
}

function path(c) {
  return c.parent ? `${path(c.parent)} ${c.name}` : c.name;
}

function allFlags(c) {
  const flags = { help: { type: 'bool', short: 'h' } };
  for (let p = c.parent; p; p = p.parent) Object.assign(flags, p.persistentFlags);
  return { ...flags, ...c.persistentFlags, ...c.flags };
}

function ld(a, b) {
  a = a.toLowerCase();
  b = b.toLowerCase();
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length][b.length];
}

function suggestions(c, typed) {
  const names = c.children.filter((k) => !k.hidden && (ld(typed, k.name) <= 2 || k.name.toLowerCase().startsWith(typed.toLowerCase()))).map((k) => k.name);
  return names.length ? `\n\nDid you mean this?\n${names.map((n) => `\t${n}\n`).join('')}` : '';
}

/** cobra's stripFlags: drops flags and the values of non-bool flags given as separate words. */
function stripFlags(args, c) {
  const flags = allFlags(c);
  const out = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') break;
    if (a.startsWith('--') && !a.includes('=')) {
      const f = flags[a.slice(2)];
      if (f && f.type !== 'bool') i++;
    } else if (a.startsWith('-') && a.length === 2 && !a.includes('=')) {
      const f = Object.values(flags).find((x) => x.short === a[1]);
      if (f && f.type !== 'bool') i++;
    } else if (!a.startsWith('-') || a === '-') out.push(a);
  }
  return out;
}

function find(root, args) {
  let c = root;
  let rest = args;
  for (;;) {
    const words = stripFlags(rest, c);
    const next = words.length ? c.children.find((k) => k.name === words[0] || k.aliases?.includes(words[0])) : undefined;
    if (!next) return { c, rest };
    const at = rest.indexOf(words[0]);
    rest = [...rest.slice(0, at), ...rest.slice(at + 1)];
    c = next;
  }
}

function parseFlags(c, args) {
  const defs = allFlags(c);
  const values = {};
  const positional = [];
  const set = (name, def, raw, shown) => {
    if (def.type === 'bool') values[name] = raw === undefined ? true : raw === 'true';
    else if (def.type === 'int') {
      if (!/^[+-]?\d+$/.test(raw)) throw new Error(`invalid argument "${raw}" for "${shown}" flag: strconv.ParseInt: parsing "${raw}": invalid syntax`);
      values[name] = Number(raw);
    } else if (def.type === 'array') (values[name] ??= []).push(raw);
    else if (def.type === 'slice') (values[name] ??= []).push(...raw.split(',').filter(Boolean));
    else values[name] = raw;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const [name, inline] = a.slice(2).split(/=(.*)/s);
      const def = defs[name];
      if (!def) throw new Error(`unknown flag: --${name}`);
      if (def.type === 'bool' || inline !== undefined) set(name, def, inline, `--${name}`);
      else {
        if (i + 1 >= args.length) throw new Error(`flag needs an argument: --${name}`);
        set(name, def, args[++i], `--${name}`);
      }
    } else if (a.startsWith('-') && a.length > 1) {
      const ch = a[1];
      const entry = Object.entries(defs).find(([, d]) => d.short === ch);
      if (!entry) throw new Error(`unknown shorthand flag: '${ch}' in ${a}`);
      const [name, def] = entry;
      if (def.type === 'bool') set(name, def, undefined, `-${ch}`);
      else if (a.length > 2) set(name, def, a.slice(2).replace(/^=/, ''), `-${ch}`);
      else {
        if (i + 1 >= args.length) throw new Error(`flag needs an argument: '${ch}' in -${ch}`);
        set(name, def, args[++i], `-${ch}`);
      }
    } else positional.push(a);
  }
  for (const [name, def] of Object.entries(defs)) if (!(name in values) && def.default !== undefined) values[name] = def.default;
  return { values, positional };
}

export function usage(c) {
  const lines = ['Usage:', `  ${path(c)}${c.use ? ` ${c.use}` : ''}${Object.keys(c.flags).length ? ' [flags]' : ''}`];
  if (c.children.length) lines.push(`  ${path(c)} [command]`, '', 'Available Commands:', ...c.children.filter((k) => !k.hidden).map((k) => `  ${k.name.padEnd(11)} ${k.short ?? ''}`));
  lines.push('', 'Flags:', `  -h, --help   help for ${c.name}`);
  return `${lines.join('\n')}\n`;
}

/** Runs `argv` against the tree rooted at `root`; returns the exit code (DDx main.go's rules). */
export async function execute(root, argv, io = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }) {
  const { c, rest } = find(root, argv);
  const mainError = (message) => io.err(`Error: ${message}\n`);
  if (!c.parent && c.children.length) {
    const words = stripFlags(rest, c);
    if (words.length) {
      const message = `unknown command "${words[0]}" for "${path(c)}"${suggestions(c, words[0])}`;
      io.err(`Error: ${message}\nRun '${path(c)} --help' for usage.\n`);
      mainError(message);
      return 1;
    }
  }
  let parsed;
  try {
    parsed = parseFlags(c, rest);
  } catch (error) {
    io.err(`Error: ${error.message}\n`);
    if (!c.silenceUsage) io.err(`${usage(c)}\n`);
    mainError(error.message);
    return 1;
  }
  if (parsed.values.help || !c.run) {
    io.out(`${c.long ?? c.short ?? ''}\n\n${usage(c)}`);
    return 0;
  }
  const args = parsed.positional;
  let argError;
  if (c.args === 'exact1' && args.length !== 1) argError = `accepts 1 arg(s), received ${args.length}`;
  if (c.args === 'none' && args.length) argError = `unknown command "${args[0]}" for "${path(c)}"`;
  if (c.args === 'range01' && args.length > 1) argError = `accepts at most 1 arg(s), received ${args.length}`;
  try {
    if (argError) throw new Error(argError);
    await c.run(parsed.values, args, io);
    return 0;
  } catch (error) {
    if (error instanceof ExitError) {
      if (error.message) mainError(error.message);
      return error.code;
    }
    if (!c.silenceErrors) io.err(`Error: ${error.message}\n`);
    if (!c.silenceUsage) io.err(`${usage(c)}\n`);
    mainError(error.message);
    return 1;
  }
}

/** Links children to parents (for command paths and inherited flags). */
export function tree(root) {
  const link = (c) => {
    for (const k of c.children) {
      k.parent = c;
      link(k);
    }
  };
  link(root);
  return root;
}
