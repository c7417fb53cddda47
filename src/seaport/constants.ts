/** Seaport 1.6 constants: item and order types, EIP-712 type strings, the zero values. */
export { ItemType, OrderType, SEAPORT_NAME, SEAPORT_VERSION } from '../domain/seaport.ts';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
export const ZERO_BYTES32 = `0x${'00'.repeat(32)}`;
/** conduitKey of "no conduit": Seaport itself is the operator. */
export const NO_CONDUIT_KEY = ZERO_BYTES32;

export const OFFER_ITEM_TYPE =
  'OfferItem(uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount)';
export const CONSIDERATION_ITEM_TYPE =
  'ConsiderationItem(uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount,address recipient)';
export const ORDER_COMPONENTS_TYPE =
  'OrderComponents(address offerer,address zone,OfferItem[] offer,ConsiderationItem[] consideration,uint8 orderType,uint256 startTime,uint256 endTime,bytes32 zoneHash,uint256 salt,bytes32 conduitKey,uint256 counter)';
export const EIP712_DOMAIN_TYPE =
  'EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)';
export const ORDER_HASH_TYPE = 'OrderHash(bytes32 orderHash)';

/** ABI fragments the daemon uses on Seaport, WETH and NFT contracts (human-readable, ethers). */
const ORDER_COMPONENTS_TUPLE =
  'tuple(address offerer,address zone,tuple(uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount)[] offer,tuple(uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount,address recipient)[] consideration,uint8 orderType,uint256 startTime,uint256 endTime,bytes32 zoneHash,uint256 salt,bytes32 conduitKey,uint256 counter)';

export const SEAPORT_ABI = Object.freeze([
  `function cancel(${ORDER_COMPONENTS_TUPLE}[] orders) returns (bool cancelled)`,
  'function incrementCounter() returns (uint256 newCounter)',
  'function getCounter(address offerer) view returns (uint256 counter)',
  'function getOrderStatus(bytes32 orderHash) view returns (bool isValidated,bool isCancelled,uint256 totalFilled,uint256 totalSize)',
  `function getOrderHash(${ORDER_COMPONENTS_TUPLE} order) view returns (bytes32 orderHash)`,
]);

export const ERC20_APPROVAL_ABI = Object.freeze([
  'function allowance(address owner, address spender) view returns (uint256)',
  'function approve(address spender, uint256 amount) returns (bool)',
]);

export const NFT_APPROVAL_ABI = Object.freeze([
  'function isApprovedForAll(address owner, address operator) view returns (bool)',
  'function setApprovalForAll(address operator, bool approved)',
]);
