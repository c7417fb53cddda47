import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Contract, ContractFactory, type ContractRunner, getAddress, type Signer } from 'ethers';
import { type CompiledContract, type CompileOptions, compile, contractOf, PROJECT_ROOT } from './compile.ts';

const CONTRACTS_DIR = join(PROJECT_ROOT, 'contracts');

/** The project's own Solidity sources (`contracts/*.sol`), compiled together (cached). */
export function compileProjectContracts(options: CompileOptions = {}) {
  const sources: Record<string, string> = {};
  for (const f of readdirSync(CONTRACTS_DIR)
    .filter((n) => n.endsWith('.sol'))
    .sort()) {
    sources[f] = readFileSync(join(CONTRACTS_DIR, f), 'utf8');
  }
  return compile({ label: 'harpoon sandbox contracts', sources, viaIR: false, optimizerRuns: 200 }, options);
}

export type ProjectContractName =
  | 'WETH9'
  | 'TestERC20'
  | 'TraitERC721'
  | 'TestERC1155'
  | 'SandboxSignedZone'
  | 'SandboxDrop';

export interface ProjectArtifacts {
  get(name: ProjectContractName): CompiledContract;
}

export async function loadProjectArtifacts(options: CompileOptions = {}): Promise<ProjectArtifacts> {
  const compiled = await compileProjectContracts(options);
  return { get: (name) => contractOf(compiled, `${name}.sol:${name}`) };
}

export async function deployContract(
  artifacts: ProjectArtifacts,
  name: ProjectContractName,
  signer: Signer,
  args: readonly unknown[] = [],
): Promise<Contract> {
  const a = artifacts.get(name);
  const factory = new ContractFactory(a.abi as never[], a.bytecode, signer);
  const c = await factory.deploy(...args);
  await c.waitForDeployment();
  return new Contract(getAddress(await c.getAddress()), a.abi as never[], signer);
}

/** A contract handle for an already deployed project contract. */
export function attach(
  artifacts: ProjectArtifacts,
  name: ProjectContractName,
  address: string,
  runner: ContractRunner,
): Contract {
  return new Contract(address, artifacts.get(name).abi as never[], runner);
}
