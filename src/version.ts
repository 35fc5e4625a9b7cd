// The helix version, in one place: package.json's `version` field, read when asked. bin/helix
// answers `--version` with it, and `helix doctor` prints it in its header.
import { readFileSync } from 'node:fs';

export function helixVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
