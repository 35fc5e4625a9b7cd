// File patterns a memory mentions (`src/auth.py`, `package.json`, `worker/Dockerfile`), so a
// query or a task that names the file finds the memory by its path, not by the words in it.

// A path-like token: optional folders, then a name with an extension of letters/digits, or one of
// the build files that have no extension.
const PATH_TOKEN =
  /(?:^|[\s`'"(\[,])((?:[\w.-]+\/)*(?:[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7}|(?:Dockerfile|Containerfile|Makefile|Jenkinsfile|Procfile|Gemfile|Rakefile|Vagrantfile|Justfile|CODEOWNERS)(?:\.[\w-]+)?))(?=$|[\s`'"),\]:;!?]|\.(?:\s|$))/g;

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

/** A path as the hook or a task gives it, made comparable with stored patterns. */
export function cleanPath(path: string): string {
  return path.trim().replace(/\\/g, '/').replace(/^\.\//, '');
}

/**
 * How well a stored pattern names `file`: the number of trailing path segments they share when one
 * is a suffix of the other (`src/auth.py` names `app/src/auth.py` with 2), else 0. A bare file
 * name shares 1 — weaker, since several folders may hold a `client.go`.
 */
export function pathMatch(pattern: string, file: string): number {
  return sharedSuffix(cleanPath(pattern).split('/'), cleanPath(file).split('/'));
}

/** `pathMatch` on paths already split into segments (a long path is split once, not per memory). */
export function sharedSuffix(a: string[], b: string[]): number {
  let shared = 0;
  while (shared < a.length && shared < b.length && a[a.length - 1 - shared] === b[b.length - 1 - shared]) shared++;
  // Only a whole suffix counts: `x/auth.py` does not name `y/auth.py`.
  return shared === Math.min(a.length, b.length) ? shared : 0;
}

/**
 * The paths a query names: the file patterns in it, or the whole query when it is one path-like
 * token (`api/Dockerfile`, `src/lib`), as the edit hook sends it.
 */
export function queryPaths(text: string): string[] {
  const found = filePatterns(text);
  const single = text.trim();
  if (found.length === 0 && /^[\w.@-]*\/[\w./@-]+$/.test(single)) found.push(cleanPath(single));
  return found.map(cleanPath);
}
