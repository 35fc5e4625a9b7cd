// `node --import …/ablation-register.mjs?ablate=<name> bin/helix …`: registers the simulation's
// module hooks for one ablation (see ablations.mjs) before helix loads.
import { register } from 'node:module';

const ablate = new URL(import.meta.url).searchParams.get('ablate');
register('./ablation-hooks.mjs', import.meta.url, { data: { ablate } });
