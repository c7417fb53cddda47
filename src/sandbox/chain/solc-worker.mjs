// Runs solc-js (synchronous, ~45 s for Seaport with viaIR) off the main thread so the caller can
// report progress. Input: { input: <standard JSON>, roots: [<dirs to resolve imports from>] }.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import solc from 'solc';

const { input, roots } = workerData;

function findImport(path) {
  for (const root of roots) {
    try {
      return { contents: readFileSync(join(root, path), 'utf8') };
    } catch {
      // try the next root
    }
  }
  return { error: `import not found: ${path}` };
}

const output = solc.compile(JSON.stringify(input), { import: findImport });
parentPort.postMessage({ output, version: solc.version() });
