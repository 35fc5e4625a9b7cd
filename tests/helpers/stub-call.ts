// The shape of one line of the stubs' call log ($HELIX_STUB_LOG) and of a scripted response;
// tests/stubs/README.md documents both.

export interface StubCall {
  program: string;
  argv: string[];
  stdin: string;
  cwd: string;
  kind: string;
  action: string | null;
  id: string | null;
  env: Record<string, string>;
  pid: number;
  response: number | null;
}

export interface StubResponse {
  when?: string | string[];
  stdout?: string;
  stderr?: string;
  exit?: number;
  run?: string[][];
  marker?: string;
  waitFor?: string;
  hang?: boolean;
  spawnChild?: boolean;
  tokens?: number;
  /** codex / claude: text their transcript shows (a command's output), not part of the answer. */
  transcript?: string;
  /** claude: total_cost_usd of the result. */
  cost?: number;
  result?: Record<string, unknown>;
}
