// `tracker init`: the tracker folder and an empty bead file, never emptying one that exists.
import { mkdirSync, writeFileSync } from 'node:fs';
import { excludeRuntimeFiles } from './tracker-dir.js';

export function initTracker(dir: string, file: string): void {
  mkdirSync(dir, { recursive: true });
  try {
    // 'wx': create only; checking first and then writing could empty a file another tool just created
    writeFileSync(file, '', { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  excludeRuntimeFiles(dir);
}
