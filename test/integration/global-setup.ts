// Compiles the sandbox's contracts (Seaport with viaIR, the project's own) once, before any test
// file starts a sandbox: on a fresh clone that is the slowest step of all (about 45 s on an idle
// machine, minutes on a busy one), and no test's hook timeout should have to include it.
import { compileProjectContracts } from '../../src/sandbox/chain/contracts.ts';
import { compileSeaport } from '../../src/sandbox/chain/seaport.ts';

export default async function setup(): Promise<void> {
  const started = Date.now();
  await Promise.all([compileSeaport(), compileProjectContracts()]);
  const s = Math.round((Date.now() - started) / 1000);
  if (s > 1) process.stderr.write(`integration setup: sandbox contracts compiled in ${s} s (cached after)\n`);
}
