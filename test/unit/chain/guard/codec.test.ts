import { TypedDataEncoder } from 'ethers';
import { describe, expect, it } from 'vitest';
import { functionBySignature } from '../../../../src/chain/guard/abis.ts';
import { AbiCodecError, decodeCanonical, encodeValues } from '../../../../src/chain/guard/codec.ts';
import {
  decodeStrict,
  fillOrderHash,
  lookupFunction,
  seaportFill,
} from '../../../../src/chain/guard/index.ts';
import type { SeaportFill } from '../../../../src/chain/guard/seaport.ts';
import { seaportOrderTypes } from '../../../../src/domain/seaport.ts';
import { prng } from '../../../fixtures/guard/mutations.ts';
import { advancedListing, basicListing, dangerI, listingParams, ME, reasonOf, seaportI } from './helpers.ts';

const advanced = functionBySignature(seaportI.getFunction('fulfillAdvancedOrder')!.format('sighash'))!;
const buf = (hex: string) => Buffer.from(hex.slice(2), 'hex');

/** The order hash through ethers' generic EIP-712 encoder: the reference the guard's own is checked against. */
const reference = TypedDataEncoder.from(seaportOrderTypes());
function fillOrderHashReference(f: SeaportFill, counter: bigint): string {
  return reference
    .hash({
      offerer: f.offerer,
      zone: f.zone,
      offer: f.offer,
      consideration: f.consideration.slice(0, Number(f.totalOriginalConsiderationItems)),
      orderType: f.orderType,
      startTime: f.startTime,
      endTime: f.endTime,
      zoneHash: f.zoneHash,
      salt: f.salt,
      conduitKey: f.conduitKey,
      counter,
    })
    .toLowerCase();
}

function randomListing(rnd: () => number) {
  const r = (n: number) => BigInt(Math.floor(rnd() * n));
  const addr = () =>
    `0x${Array.from({ length: 20 }, () =>
      Math.floor(rnd() * 256)
        .toString(16)
        .padStart(2, '0'),
    ).join('')}`;
  const item = () => ({
    itemType: Number(r(6)),
    token: addr(),
    identifierOrCriteria: r(1e12) << r(150),
    startAmount: r(1e18),
    endAmount: r(1e18),
  });
  return listingParams({
    offerer: addr(),
    offer: Array.from({ length: Number(r(3)) + 1 }, item),
    consideration: Array.from({ length: Number(r(4)) }, () => ({ ...item(), recipient: addr() })),
    salt: r(2 ** 52) << r(200),
    totalOriginalConsiderationItems: r(4),
  });
}

describe('strict codec', () => {
  it('decodes and encodes exactly like ethers on random Seaport calls', () => {
    const rnd = prng(3);
    for (let i = 0; i < 200; i++) {
      const data = advancedListing(randomListing(rnd), { numerator: 1n, denominator: 1n });
      const { args, size } = decodeCanonical(advanced.inputs, buf(data), 4);
      expect(4 + size).toBe(buf(data).length);
      const ours = advanced.selector + encodeValues(advanced.inputs, args);
      expect(ours).toBe(data.toLowerCase());
      const theirs = seaportI.decodeFunctionData('fulfillAdvancedOrder', data);
      const o = args['advancedOrder'] as {
        parameters: { offer: { token: string; identifierOrCriteria: bigint }[] };
      };
      expect(o.parameters.offer[0]?.token).toBe(String(theirs[0].parameters.offer[0].token).toLowerCase());
      expect(o.parameters.offer[0]?.identifierOrCriteria).toBe(
        theirs[0].parameters.offer[0].identifierOrCriteria,
      );
    }
  });

  it('the order hash matches the generic EIP-712 encoder', () => {
    const rnd = prng(4);
    for (let i = 0; i < 50; i++) {
      const data = advancedListing(randomListing(rnd));
      const f = seaportFill(decodeStrict(lookupFunction(data), data, []));
      expect(fillOrderHash(f, BigInt(i))).toBe(fillOrderHashReference(f, BigInt(i)));
    }
  });

  it('encodes the API’s JSON shapes: numbers, decimal and hex strings, objects by name', () => {
    const approve = functionBySignature('approve(address,uint256)')!;
    const want = dangerI.encodeFunctionData('approve', [ME, 255n]).toLowerCase();
    for (const value of [255, '255', '0xff', 255n]) {
      expect(approve.selector + encodeValues(approve.inputs, { spender: ME, value })).toBe(want);
    }
    expect(approve.selector + encodeValues(approve.inputs, [ME, 255])).toBe(want);
    for (const bad of [
      { spender: ME },
      { spender: 'me', value: 1 },
      { spender: ME, value: -1 },
      { spender: ME, value: '1.5' },
      { spender: ME, value: 2n ** 256n },
    ]) {
      expect(() => encodeValues(approve.inputs, bad)).toThrow(AbiCodecError);
    }
  });

  const word = (n: number | bigint) => BigInt(n).toString(16).padStart(64, '0');
  const basic = basicListing();
  const tamper = (data: string, byteOffset: number, hexWord: string) =>
    `${data.slice(0, 2 + byteOffset * 2)}${hexWord}${data.slice(2 + byteOffset * 2 + 64)}`;
  it.each([
    // basic order: head word 0 is the offset of the parameters tuple (0x20)
    ['an aliased top-level offset', () => tamper(basic, 4, word(0x40)), 'non_canonical_calldata'],
    [
      'dirty address padding',
      () =>
        tamper(basic, 4 + 32, `ff${'00'.repeat(11)}${basic.slice(2 + (4 + 32) * 2 + 24, 2 + (4 + 64) * 2)}`),
      'non_canonical_calldata',
    ],
    [
      'a uint8 with high bits (basicOrderType)',
      () => tamper(basic, 4 + 32 + 8 * 32, word(0x101)),
      'non_canonical_calldata',
    ],
    ['an offset past the end', () => tamper(basic, 4, word(0xffff)), 'non_canonical_calldata'],
    ['a huge length', () => tamper(basic, 4, `${'ff'.repeat(32)}`), 'malformed_calldata'],
    ['truncated', () => basic.slice(0, basic.length - 64), 'malformed_calldata'],
  ])('refuses %s', (_n, make, reason) => {
    const data = make();
    expect(reasonOf(() => decodeStrict(lookupFunction(data), data, []))).toBe(reason);
  });

  it('refuses dirty padding in bytes and a bool that is not 0 or 1', () => {
    const sfa = dangerI.encodeFunctionData('setApprovalForAll', [ME, true]);
    const dirtyBool = `${sfa.slice(0, sfa.length - 2)}02`;
    expect(reasonOf(() => decodeStrict(lookupFunction(dirtyBool), dirtyBool, []))).toBe(
      'non_canonical_calldata',
    );
    // the signature (bytes 0x1234) is the last field: its padding follows it at the very end
    const dirtyBytes = `${basic.slice(0, basic.length - 2)}01`;
    expect(reasonOf(() => decodeStrict(lookupFunction(dirtyBytes), dirtyBytes, []))).toBe(
      'non_canonical_calldata',
    );
  });
});
