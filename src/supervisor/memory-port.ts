// The run loop's learning hooks (issue 8 wires the memory store in here). Until then the run
// works without memory: no injection, no feedback, no memory line in status.
import type { MemoryPort } from './runner.js';

export async function openMemoryPort(_root: string, _env: NodeJS.ProcessEnv, _say: (line: string) => void): Promise<MemoryPort | undefined> {
  return undefined;
}

export async function memoryHealth(_root: string, _env: NodeJS.ProcessEnv): Promise<Record<string, unknown> | null> {
  return null;
}
