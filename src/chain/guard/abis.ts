/**
 * ABI fragments the calldata guard decodes with. Written out here (the daemon never imports the
 * sandbox): Seaport 1.6 fulfillment functions, the Uniswap v2 router's swap functions, WETH
 * wrap/unwrap, the drop contract's staged mint, and the "danger" shapes — approvals, permits,
 * transfers, multicalls and delegatecall-capable entry points — that API-built calldata must never
 * smuggle in.
 */
import { type FunctionFragment, Interface } from 'ethers';
import { type AbiNode, nodeOf, tupleNode } from './codec.ts';

const OFFER_ITEM =
  'tuple(uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount)';
const CONSIDERATION_ITEM =
  'tuple(uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount,address recipient)';
const ORDER_PARAMETERS = `tuple(address offerer,address zone,${OFFER_ITEM}[] offer,${CONSIDERATION_ITEM}[] consideration,uint8 orderType,uint256 startTime,uint256 endTime,bytes32 zoneHash,uint256 salt,bytes32 conduitKey,uint256 totalOriginalConsiderationItems)`;
const ORDER = `tuple(${ORDER_PARAMETERS} parameters,bytes signature)`;
const ADVANCED_ORDER = `tuple(${ORDER_PARAMETERS} parameters,uint120 numerator,uint120 denominator,bytes signature,bytes extraData)`;
const CRITERIA_RESOLVER =
  'tuple(uint256 orderIndex,uint8 side,uint256 index,uint256 identifier,bytes32[] criteriaProof)';
const BASIC_ORDER_PARAMETERS =
  'tuple(address considerationToken,uint256 considerationIdentifier,uint256 considerationAmount,address offerer,address zone,address offerToken,uint256 offerIdentifier,uint256 offerAmount,uint8 basicOrderType,uint256 startTime,uint256 endTime,bytes32 zoneHash,uint256 salt,bytes32 offererConduitKey,bytes32 fulfillerConduitKey,uint256 totalOriginalAdditionalRecipients,tuple(uint256 amount,address recipient)[] additionalRecipients,bytes signature)';
const FULFILLMENT_COMPONENT = 'tuple(uint256 orderIndex,uint256 itemIndex)';
const FULFILLMENT = `tuple(${FULFILLMENT_COMPONENT}[] offerComponents,${FULFILLMENT_COMPONENT}[] considerationComponents)`;

/** Seaport 1.6 entry points that move assets (the guard allows only the single-order ones). */
export const SEAPORT_ABI = [
  `function fulfillBasicOrder(${BASIC_ORDER_PARAMETERS} parameters) payable returns (bool fulfilled)`,
  `function fulfillBasicOrder_efficient_6GL6yc(${BASIC_ORDER_PARAMETERS} parameters) payable returns (bool fulfilled)`,
  `function fulfillOrder(${ORDER} order,bytes32 fulfillerConduitKey) payable returns (bool fulfilled)`,
  `function fulfillAdvancedOrder(${ADVANCED_ORDER} advancedOrder,${CRITERIA_RESOLVER}[] criteriaResolvers,bytes32 fulfillerConduitKey,address recipient) payable returns (bool fulfilled)`,
  `function fulfillAvailableOrders(${ORDER}[] orders,${FULFILLMENT_COMPONENT}[][] offerFulfillments,${FULFILLMENT_COMPONENT}[][] considerationFulfillments,bytes32 fulfillerConduitKey,uint256 maximumFulfilled) payable returns (bool[] availableOrders,tuple(tuple(uint8 itemType,address token,uint256 identifier,uint256 amount,address recipient) item,address offerer,bytes32 conduitKey)[] executions)`,
  `function fulfillAvailableAdvancedOrders(${ADVANCED_ORDER}[] advancedOrders,${CRITERIA_RESOLVER}[] criteriaResolvers,${FULFILLMENT_COMPONENT}[][] offerFulfillments,${FULFILLMENT_COMPONENT}[][] considerationFulfillments,bytes32 fulfillerConduitKey,address recipient,uint256 maximumFulfilled) payable returns (bool[] availableOrders,tuple(tuple(uint8 itemType,address token,uint256 identifier,uint256 amount,address recipient) item,address offerer,bytes32 conduitKey)[] executions)`,
  `function matchOrders(${ORDER}[] orders,${FULFILLMENT}[] fulfillments) payable returns (tuple(tuple(uint8 itemType,address token,uint256 identifier,uint256 amount,address recipient) item,address offerer,bytes32 conduitKey)[] executions)`,
  `function matchAdvancedOrders(${ADVANCED_ORDER}[] orders,${CRITERIA_RESOLVER}[] criteriaResolvers,${FULFILLMENT}[] fulfillments,address recipient) payable returns (tuple(tuple(uint8 itemType,address token,uint256 identifier,uint256 amount,address recipient) item,address offerer,bytes32 conduitKey)[] executions)`,
  `function validate(${ORDER}[] orders) returns (bool validated)`,
  'function incrementCounter() returns (uint256 newCounter)',
] as const;

/** Uniswap v2 router swap functions (exact-in and exact-out, with fee-on-transfer variants). */
export const ROUTER_ABI = [
  'function swapExactETHForTokens(uint256 amountOutMin,address[] path,address to,uint256 deadline) payable returns (uint256[] amounts)',
  'function swapExactTokensForETH(uint256 amountIn,uint256 amountOutMin,address[] path,address to,uint256 deadline) returns (uint256[] amounts)',
  'function swapExactTokensForTokens(uint256 amountIn,uint256 amountOutMin,address[] path,address to,uint256 deadline) returns (uint256[] amounts)',
  'function swapETHForExactTokens(uint256 amountOut,address[] path,address to,uint256 deadline) payable returns (uint256[] amounts)',
  'function swapTokensForExactETH(uint256 amountOut,uint256 amountInMax,address[] path,address to,uint256 deadline) returns (uint256[] amounts)',
  'function swapTokensForExactTokens(uint256 amountOut,uint256 amountInMax,address[] path,address to,uint256 deadline) returns (uint256[] amounts)',
  'function swapExactETHForTokensSupportingFeeOnTransferTokens(uint256 amountOutMin,address[] path,address to,uint256 deadline) payable',
  'function swapExactTokensForETHSupportingFeeOnTransferTokens(uint256 amountIn,uint256 amountOutMin,address[] path,address to,uint256 deadline)',
  'function swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256 amountIn,uint256 amountOutMin,address[] path,address to,uint256 deadline)',
] as const;

/** WETH wrap and unwrap. */
export const WETH_ABI = ['function deposit() payable', 'function withdraw(uint256 wad)'] as const;

/** The sandbox drop contract's staged mint (tokens go to `minter`, whoever pays). */
export const DROP_ABI = [
  'function mint(uint256 stageIndex,address minter,uint256 quantity,bytes32[] proof) payable',
] as const;

/**
 * Shapes that grant, move or delegate: refused everywhere, except an exact ERC20 `approve` of the
 * router as the step a swap quote may put before its swap.
 */
export const DANGER_ABI = [
  'function approve(address spender,uint256 value) returns (bool)',
  'function increaseAllowance(address spender,uint256 addedValue) returns (bool)',
  'function permit(address owner,address spender,uint256 value,uint256 deadline,uint8 v,bytes32 r,bytes32 s)',
  'function permit(address holder,address spender,uint256 nonce,uint256 expiry,bool allowed,uint8 v,bytes32 r,bytes32 s)',
  'function setApprovalForAll(address operator,bool approved)',
  'function transfer(address to,uint256 value) returns (bool)',
  'function transferFrom(address from,address to,uint256 value) returns (bool)',
  'function safeTransferFrom(address from,address to,uint256 tokenId)',
  'function safeTransferFrom(address from,address to,uint256 tokenId,bytes data)',
  'function safeTransferFrom(address from,address to,uint256 id,uint256 amount,bytes data)',
  'function safeBatchTransferFrom(address from,address to,uint256[] ids,uint256[] amounts,bytes data)',
  'function multicall(bytes[] data) payable returns (bytes[] results)',
  'function multicall(uint256 deadline,bytes[] data) payable returns (bytes[] results)',
  'function multicall(bytes32 previousBlockhash,bytes[] data) payable returns (bytes[] results)',
  'function aggregate(tuple(address target,bytes callData)[] calls) payable returns (uint256 blockNumber,bytes[] returnData)',
  'function tryAggregate(bool requireSuccess,tuple(address target,bytes callData)[] calls) payable returns (tuple(bool success,bytes returnData)[] returnData)',
  'function aggregate3(tuple(address target,bool allowFailure,bytes callData)[] calls) payable returns (tuple(bool success,bytes returnData)[] returnData)',
  'function execTransaction(address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,bytes signatures) payable returns (bool success)',
  'function execute(bytes commands,bytes[] inputs,uint256 deadline) payable',
  'function execute(bytes commands,bytes[] inputs) payable',
  'function delegatecall(address target,bytes data) payable returns (bytes result)',
  'function upgradeToAndCall(address newImplementation,bytes data) payable',
  'function setApprovalForAllBySig(address owner,address operator,bool approved,uint256 deadline,bytes signature)',
] as const;

export const seaportInterface = new Interface(SEAPORT_ABI as unknown as string[]);
export const routerInterface = new Interface(ROUTER_ABI as unknown as string[]);
export const wethInterface = new Interface(WETH_ABI as unknown as string[]);
export const dropInterface = new Interface(DROP_ABI as unknown as string[]);
export const dangerInterface = new Interface(DANGER_ABI as unknown as string[]);

/** Which family a known function belongs to. */
export type AbiFamily = 'seaport' | 'router' | 'weth' | 'drop' | 'danger';

export interface KnownFunction {
  readonly family: AbiFamily;
  readonly iface: Interface;
  readonly fragment: FunctionFragment;
  /** Canonical Solidity signature (`name(types)`), the wire `transaction.function`. */
  readonly signature: string;
  readonly selector: string;
  /** The arguments as one tuple node of the guard's strict codec. */
  readonly inputs: AbiNode & { k: 'tuple' };
}

const FAMILIES: readonly (readonly [AbiFamily, Interface])[] = [
  ['seaport', seaportInterface],
  ['router', routerInterface],
  ['weth', wethInterface],
  ['drop', dropInterface],
  ['danger', dangerInterface],
];

function buildIndex(): {
  bySelector: ReadonlyMap<string, KnownFunction>;
  bySignature: ReadonlyMap<string, KnownFunction>;
} {
  const bySelector = new Map<string, KnownFunction>();
  const bySignature = new Map<string, KnownFunction>();
  for (const [family, iface] of FAMILIES) {
    iface.forEachFunction((fragment) => {
      const known: KnownFunction = {
        family,
        iface,
        fragment,
        signature: fragment.format('sighash'),
        selector: fragment.selector.toLowerCase(),
        inputs: tupleNode(
          fragment.inputs.map((p) => p.name),
          fragment.inputs.map(nodeOf),
        ) as AbiNode & { k: 'tuple' },
      };
      // First family wins on a shared selector (none today: the lists are disjoint).
      if (!bySelector.has(known.selector)) bySelector.set(known.selector, known);
      if (!bySignature.has(known.signature)) bySignature.set(known.signature, known);
    });
  }
  return { bySelector, bySignature };
}

const INDEX = buildIndex();

/** The known function with this 4-byte selector (`0x` + 8 hex), if any. */
export function functionBySelector(selector: string): KnownFunction | undefined {
  return INDEX.bySelector.get(selector.toLowerCase());
}

/** The known function with this Solidity signature (whitespace ignored), if any. */
export function functionBySignature(signature: string): KnownFunction | undefined {
  return INDEX.bySignature.get(signature.replace(/\s+/g, ''));
}

export const SELECTORS = {
  fulfillBasicOrder: seaportInterface.getFunction('fulfillBasicOrder')!.selector,
  fulfillBasicOrderEfficient: seaportInterface.getFunction('fulfillBasicOrder_efficient_6GL6yc')!.selector,
  fulfillOrder: seaportInterface.getFunction('fulfillOrder')!.selector,
  fulfillAdvancedOrder: seaportInterface.getFunction('fulfillAdvancedOrder')!.selector,
  matchAdvancedOrders: seaportInterface.getFunction('matchAdvancedOrders')!.selector,
  approve: dangerInterface.getFunction('approve')!.selector,
  deposit: wethInterface.getFunction('deposit')!.selector,
  withdraw: wethInterface.getFunction('withdraw')!.selector,
  mint: dropInterface.getFunction('mint')!.selector,
} as const;
