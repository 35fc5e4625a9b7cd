// File patterns a memory mentions (`src/auth.py`, `package.json`), so injection can surface it
// when a task touches that file even if the objective's words differ.

// A path-like token: optional folders, then a name with an extension of letters/digits.
const PATH_TOKEN = /(?:^|[\s`'"(\[,])((?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7})(?=$|[\s`'"),\]:;!?]|\.(?:\s|$))/g;

// Tokens that look like files but are prose ("e.g.", version numbers, domains of mail).
const NOT_A_FILE = /^(?:e\.g|i\.e|etc|vs|v?\d+(?:\.\d+)+)$/i;

export function filePatterns(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(PATH_TOKEN)) {
    const token = match[1]!.replace(/^\.\//, '');
    if (NOT_A_FILE.test(token)) continue;
    found.add(token);
  }
  return [...found];
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
