import { Seaport } from '@opensea/seaport-js';
import {
  AbiCoder,
  getAddress,
  JsonRpcProvider,
  keccak256,
  Signature,
  TypedDataEncoder,
  Wallet,
  ZeroAddress,
  ZeroHash,
} from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  considerationHash,
  currentAmount,
  encodeFulfillmentCalldata,
  exactFraction,
  functionSignature,
  ORDER_TYPES,
  orderDigest,
  orderHash,
  ParseError,
  parseOrderComponents,
  parseUint,
  recoverSigner,
  seaportDomain,
  seaportInterface,
  wireParameters,
  zoneExtraData,
} from '../../../../src/sandbox/market/seaport.ts';

const SEAPORT = '0x0000000000000068F116a894984e2DB1123eB395';
const wallet = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const NFT = getAddress('0x00000000000000000000000000000000c0110000');

function wire(overrides: Record<string, unknown> = {}) {
  return {
    offerer: wallet.address,
    zone: ZeroAddress,
    offer: [{ itemType: 2, token: NFT, identifierOrCriteria: '7', startAmount: '1', endAmount: '1' }],
    consideration: [
      {
        itemType: 0,
        token: ZeroAddress,
        identifierOrCriteria: '0',
        startAmount: '965000000000000000',
        endAmount: '965000000000000000',
        recipient: wallet.address,
      },
      {
        itemType: 0,
        token: ZeroAddress,
        identifierOrCriteria: '0',
        startAmount: '10000000000000000',
        endAmount: '10000000000000000',
        recipient: '0x0000a26b00c1f0df003000390027140000faa719',
      },
    ],
    orderType: 1,
    startTime: '1700000000',
    endTime: '1800000000',
    zoneHash: ZeroHash,
    salt: '0x360c6ebe0000000000000000000000000000000000000000abcdef0123456789',
    conduitKey: '0x0000007b02230091a7ed01230072f7006a004d60a8d4e71d599b8104250f0000',
    totalOriginalConsiderationItems: 2,
    counter: '0',
    ...overrides,
  };
}

describe('parseOrderComponents', () => {
  it('accepts strings and numbers, counter as string or number, and normalizes addresses', () => {
    const a = parseOrderComponents(wire({ counter: 3, startTime: 1700000000 }));
    const b = parseOrderComponents(wire({ counter: '3', offerer: wallet.address.toLowerCase() }));
    expect(a.counter).toBe(3n);
    expect(b.counter).toBe(3n);
    expect(a.startTime).toBe(1700000000n);
    expect(b.offerer).toBe(wallet.address);
    expect(a.salt).toBe(BigInt('0x360c6ebe0000000000000000000000000000000000000000abcdef0123456789'));
    expect(orderHash(a)).toBe(orderHash(b));
  });

  it('defaults zone and totalOriginalConsiderationItems', () => {
    const { zone: _z, totalOriginalConsiderationItems: _t, ...rest } = wire();
    const o = parseOrderComponents(rest);
    expect(o.zone).toBe(ZeroAddress);
    expect(o.totalOriginalConsiderationItems).toBe(2);
  });

  it.each([
    [{ offerer: '0x1234' }, 'parameters.offerer must be an address'],
    [{ counter: '-1' }, 'parameters.counter must be an unsigned integer'],
    [{ counter: 1.5 }, 'parameters.counter must be an unsigned integer'],
    [{ orderType: 9 }, 'parameters.orderType must be an integer from 0 to 4'],
    [{ offer: 'x' }, 'parameters.offer must be an array'],
    [{ zoneHash: '0x12' }, 'parameters.zoneHash must be a 0x-prefixed 32-byte hex string'],
    [{ consideration: [{ itemType: 0 }] }, 'parameters.consideration[0].token must be an address'],
  ])('rejects %j', (over, message) => {
    expect(() => parseOrderComponents(wire(over))).toThrow(ParseError);
    expect(() => parseOrderComponents(wire(over))).toThrow(message);
  });

  it('bounds uints to 256 bits', () => {
    expect(parseUint(`0x${'f'.repeat(64)}`, 'x')).toBe((1n << 256n) - 1n);
    expect(() => parseUint('1'.repeat(79), 'x')).toThrow(ParseError);
  });

  it('renders the wire parameters with decimal strings and a numeric counter', () => {
    const w = wireParameters(parseOrderComponents(wire({ counter: '12' })));
    expect(w.counter).toBe(12);
    expect(w.salt).toBe(BigInt(wire().salt as string).toString());
    expect(w.consideration[1]?.recipient).toBe(getAddress('0x0000a26b00c1f0df003000390027140000faa719'));
    expect(orderHash(parseOrderComponents(w))).toBe(orderHash(parseOrderComponents(wire({ counter: '12' }))));
  });
});

describe('order hash and signatures', () => {
  it('equals seaport-js getOrderHash', () => {
    const sp = new Seaport(new JsonRpcProvider('http://127.0.0.1:1', 1, { staticNetwork: true }) as never);
    for (const over of [{}, { counter: '5' }, { orderType: 3, zone: wallet.address }]) {
      const o = parseOrderComponents(wire(over));
      const js = sp.getOrderHash({ ...wire(over), counter: String(o.counter) } as never);
      expect(orderHash(o)).toBe(js.toLowerCase());
    }
  });

  it('changes with any signed field', () => {
    const h = orderHash(parseOrderComponents(wire()));
    expect(orderHash(parseOrderComponents(wire({ counter: '1' })))).not.toBe(h);
    expect(orderHash(parseOrderComponents(wire({ salt: '1' })))).not.toBe(h);
  });

  it('recovers 65-byte and 64-byte compact EOA signatures', async () => {
    const o = parseOrderComponents(wire());
    const domain = seaportDomain(1, SEAPORT);
    const sig = await wallet.signTypedData(domain, ORDER_TYPES, {
      ...wire(),
      salt: BigInt(wire().salt as string),
    } as never);
    const digest = orderDigest(o, domain);
    expect(digest).toBe(TypedDataEncoder.hash(domain, ORDER_TYPES, { ...wire() } as never));
    expect(recoverSigner(digest, sig)).toBe(wallet.address);
    expect(recoverSigner(digest, Signature.from(sig).compactSerialized)).toBe(wallet.address);
    // another domain (chain id) recovers someone else
    expect(recoverSigner(orderDigest(o, seaportDomain(5, SEAPORT)), sig)).not.toBe(wallet.address);
  });

  it('rejects other signature forms', async () => {
    const digest = orderDigest(parseOrderComponents(wire()), seaportDomain(1, SEAPORT));
    const sig = await wallet.signTypedData(seaportDomain(1, SEAPORT), ORDER_TYPES, wire() as never);
    expect(() => recoverSigner(digest, `${sig}00112233`)).toThrow(/only 65-byte or 64-byte/);
    expect(() => recoverSigner(digest, `${sig.slice(0, 130)}01`)).toThrow(/v must be 27 or 28/);
    expect(() => recoverSigner(digest, 'nope')).toThrow(ParseError);
    expect(() => recoverSigner(digest, undefined)).toThrow(ParseError);
  });
});

describe('amounts', () => {
  it('interpolates like AmountDeriver (rounding up for consideration, down for offer)', () => {
    expect(currentAmount(100n, 100n, 0n, 10n, 5n, true)).toBe(100n);
    expect(currentAmount(100n, 0n, 0n, 10n, 5n, true)).toBe(50n);
    expect(currentAmount(10n, 0n, 0n, 3n, 1n, false)).toBe(6n); // 20/3 = 6.67 down
    expect(currentAmount(10n, 0n, 0n, 3n, 1n, true)).toBe(7n);
    expect(currentAmount(100n, 0n, 0n, 10n, 50n, true)).toBe(0n); // after the end
  });

  it('refuses inexact fractions', () => {
    expect(exactFraction(30n, 1n, 3n)).toBe(10n);
    expect(exactFraction(31n, 1n, 3n)).toBeUndefined();
    expect(exactFraction(31n, 3n, 3n)).toBe(31n);
  });
});

describe('zone authorization encoding', () => {
  it('hashes ReceivedItem[] as abi.encode of the struct array', () => {
    const items = [
      { itemType: 2, token: NFT, identifier: 7n, amount: 1n, recipient: wallet.address },
      { itemType: 1, token: NFT, identifier: 0n, amount: 5n, recipient: ZeroAddress },
    ];
    const manual = keccak256(
      AbiCoder.defaultAbiCoder().encode(
        ['tuple(uint8,address,uint256,uint256,address)[]'],
        [items.map((i) => [i.itemType, i.token, i.identifier, i.amount, i.recipient])],
      ),
    );
    expect(considerationHash(items)).toBe(manual);
    expect(considerationHash(items.slice(0, 1))).not.toBe(manual);
  });

  it('lays out extraData as expiration (8 bytes) ‖ 65-byte signature', async () => {
    const sig = Signature.from(await wallet.signMessage('x')).serialized;
    const extra = zoneExtraData(0x1234n, sig);
    expect(extra.length).toBe(2 + 2 * 73);
    expect(extra.slice(0, 18)).toBe('0x0000000000001234');
    expect(extra.slice(18)).toBe(sig.slice(2));
  });
});

describe('fulfillment calldata', () => {
  it('names full Solidity signatures', () => {
    expect(functionSignature('fulfillAdvancedOrder')).toBe(
      'fulfillAdvancedOrder(((address,address,(uint8,address,uint256,uint256,uint256)[],(uint8,address,uint256,uint256,uint256,address)[],uint8,uint256,uint256,bytes32,uint256,bytes32,uint256),uint120,uint120,bytes,bytes),(uint256,uint8,uint256,uint256,bytes32[])[],bytes32,address)',
    );
    expect(seaportInterface.getFunction('fulfillBasicOrder_efficient_6GL6yc')?.selector).toBe('0x00000000');
  });

  it('encodes input_data keyed by parameter names and round-trips', () => {
    const o = parseOrderComponents(wire());
    const w = wireParameters(o);
    const input = {
      advancedOrder: {
        parameters: { ...w, totalOriginalConsiderationItems: 2 },
        numerator: 1,
        denominator: 1,
        signature: '0x',
        extraData: '0x',
      },
      criteriaResolvers: [],
      fulfillerConduitKey: ZeroHash,
      recipient: wallet.address,
    };
    const data = encodeFulfillmentCalldata(functionSignature('fulfillAdvancedOrder'), input);
    const decoded = seaportInterface.decodeFunctionData('fulfillAdvancedOrder', data);
    expect(decoded[3]).toBe(wallet.address);
    expect(decoded[0].parameters.offer[0].identifierOrCriteria).toBe(7n);
    expect(() =>
      encodeFulfillmentCalldata('fulfillAdvancedOrder', { advancedOrder: input.advancedOrder }),
    ).toThrow(/criteriaResolvers/);
  });
});
