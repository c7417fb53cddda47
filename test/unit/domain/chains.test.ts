import { describe, expect, it } from 'vitest';
import {
  CHAIN_IDS,
  CHAIN_NAMES,
  chainIdOf,
  chainNameOf,
  isChainName,
  isEvmChain,
  NON_EVM_CHAINS,
} from '../../../src/domain/chains.ts';

describe('chains', () => {
  it('knows the main EVM chains with their ids', () => {
    expect(chainIdOf('ethereum')).toBe(1);
    expect(chainIdOf('base')).toBe(8453);
    expect(chainIdOf('polygon')).toBe(137);
    expect(chainIdOf('arbitrum')).toBe(42161);
    expect(chainIdOf('zora')).toBe(7777777);
  });

  it('has no id for non-EVM chains', () => {
    for (const name of NON_EVM_CHAINS) {
      expect(isEvmChain(name)).toBe(false);
      expect(chainIdOf(name)).toBeUndefined();
    }
  });

  it('maps ids back to names, for every chain, and unknown ids to undefined', () => {
    for (const [name, id] of Object.entries(CHAIN_IDS)) expect(chainNameOf(id)).toBe(name);
    expect(chainNameOf(31337)).toBeUndefined();
  });

  it('has unique ids and names', () => {
    const ids = Object.values(CHAIN_IDS);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(CHAIN_NAMES).size).toBe(CHAIN_NAMES.length);
    expect(CHAIN_NAMES.length).toBe(Object.keys(CHAIN_IDS).length + NON_EVM_CHAINS.length);
  });

  it('recognizes names exactly (the API spelling)', () => {
    expect(isChainName('ethereum')).toBe(true);
    expect(isChainName('solana')).toBe(true);
    expect(isChainName('Ethereum')).toBe(false);
    expect(isChainName('mainnet')).toBe(false);
    expect(isChainName(1)).toBe(false);
    expect(isChainName('toString')).toBe(false);
  });

  it('exposes a frozen name list', () => {
    expect(Object.isFrozen(CHAIN_NAMES)).toBe(true);
  });
});
