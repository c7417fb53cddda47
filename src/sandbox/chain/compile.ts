import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { FatalError } from '../../errors/index.ts';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
/** Repository root (src/sandbox/chain → ../../..). */
export const PROJECT_ROOT = resolve(here, '../../..');

export interface CompiledContract {
  readonly abi: readonly unknown[];
  readonly bytecode: string;
}

/** Contracts by `<source path>:<contract name>`. */
export type CompiledContracts = Readonly<Record<string, CompiledContract>>;

export interface CompileRequest {
  /** Human name for progress messages ("Seaport 1.6"). */
  readonly label: string;
  /** Source unit name → file content. Imports are resolved from `node_modules` and `contracts/`. */
  readonly sources: Readonly<Record<string, string>>;
  readonly viaIR?: boolean;
  readonly optimizerRuns?: number;
  readonly evmVersion?: string;
}

export interface CompileOptions {
  /** Cache folder; default `$HARPOON_CACHE_DIR/solc` or `<repo>/.cache/solc`. */
  readonly cacheDir?: string;
  /** Called every few seconds while solc runs, and once when it is done. */
  readonly onProgress?: (message: string) => void;
  readonly progressEveryMs?: number;
}

function solcVersion(): string {
  return (require('solc/package.json') as { version: string }).version;
}

function importRoots(): string[] {
  const seaportCore = dirname(require.resolve('seaport-core/package.json'));
  return [
    join(PROJECT_ROOT, 'node_modules'),
    join(seaportCore, 'node_modules'),
    join(PROJECT_ROOT, 'contracts'),
  ];
}

function defaultCacheDir(): string {
  const base = process.env['HARPOON_CACHE_DIR'] ?? join(PROJECT_ROOT, '.cache');
  return join(base, 'solc');
}

function standardInput(req: CompileRequest) {
  return {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(req.sources).map(([k, content]) => [k, { content }])),
    settings: {
      viaIR: req.viaIR ?? false,
      optimizer: { enabled: true, runs: req.optimizerRuns ?? 200 },
      evmVersion: req.evmVersion ?? 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
}

/** Hash of everything that determines the output: compiler version, settings, and every source read. */
function cacheKey(input: unknown, roots: readonly string[], req: CompileRequest): string {
  const h = createHash('sha256');
  h.update(solcVersion());
  h.update(JSON.stringify(input));
  // Imported files are part of the output too: hash the packages they come from by version.
  for (const pkg of ['seaport-core', 'seaport-types']) {
    try {
      h.update(`${pkg}@${(require(`${pkg}/package.json`) as { version: string }).version}`);
    } catch {
      // not installed: imports from it would fail anyway
    }
  }
  h.update(roots.length.toString());
  h.update(req.label);
  return h.digest('hex').slice(0, 32);
}

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

function runSolc(input: unknown, roots: readonly string[]): Promise<SolcOutput> {
  return new Promise((resolvePromise, reject) => {
    const worker = new Worker(new URL('./solc-worker.mjs', import.meta.url), {
      workerData: { input, roots },
    });
    worker.once('message', (msg: { output: string }) => {
      try {
        resolvePromise(JSON.parse(msg.output) as SolcOutput);
      } catch (e) {
        reject(e);
      }
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

/**
 * Compiles with solc-js, cached by a hash of the compiler version, settings and sources: only the
 * first start pays for compilation (Seaport with viaIR takes ~45 s); progress is reported meanwhile.
 */
export async function compile(req: CompileRequest, options: CompileOptions = {}): Promise<CompiledContracts> {
  const roots = importRoots();
  const input = standardInput(req);
  const key = cacheKey(input, roots, req);
  const dir = options.cacheDir ?? defaultCacheDir();
  const file = join(dir, `${key}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as CompiledContracts;
  } catch {
    // not cached yet (or unreadable): compile
  }
  const started = Date.now();
  const progress = options.onProgress;
  progress?.(
    `compiling ${req.label} with solc ${solcVersion()}${req.viaIR ? ' (viaIR)' : ''}; cached after the first run`,
  );
  const timer = progress
    ? setInterval(
        () => progress(`compiling ${req.label}... ${Math.round((Date.now() - started) / 1000)} s`),
        options.progressEveryMs ?? 5_000,
      )
    : undefined;
  timer?.unref();
  let out: SolcOutput;
  try {
    out = await runSolc(input, roots);
  } finally {
    if (timer) clearInterval(timer);
  }
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new FatalError('solc_failed', `compiling ${req.label} failed`, {
      details: { errors: errors.map((e) => e.formattedMessage).slice(0, 5) },
    });
  }
  const result: Record<string, CompiledContract> = {};
  for (const [src, contracts] of Object.entries(out.contracts ?? {})) {
    for (const [name, c] of Object.entries(contracts)) {
      result[`${src}:${name}`] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
    }
  }
  writeJsonAtomic(file, result); // concurrent starts never read a half-written cache
  progress?.(`compiled ${req.label} in ${Math.round((Date.now() - started) / 1000)} s`);
  return result;
}

/** Reads a source file from an installed package (e.g. `seaport-core/src/Seaport.sol`). */
export function packageSource(unitName: string): string {
  for (const root of importRoots()) {
    try {
      return readFileSync(join(root, unitName), 'utf8');
    } catch {
      // next root
    }
  }
  throw new FatalError('source_missing', `Solidity source ${unitName} not found; run 'npm ci'`);
}

/** Looks up one compiled contract by `<source>:<name>`, with a clear error when absent. */
export function contractOf(compiled: CompiledContracts, id: string): CompiledContract {
  const c = compiled[id];
  if (!c || c.bytecode === '0x')
    throw new FatalError('contract_missing', `compiled output has no contract ${id}`);
  return c;
}

export function writeJsonAtomic(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value));
  renameSync(tmp, file);
}
