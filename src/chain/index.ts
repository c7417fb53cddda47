export {
  assertWithinCaps,
  bumpFees,
  chooseFees,
  DEFAULT_REPLACEMENT,
  type FeeCaps,
  type Fees,
  type ReplacementPolicy,
} from './fees.ts';
export {
  type KeySource,
  keySourceFromWallet,
  type LoadSignerOptions,
  loadSigner,
  signerFromPrivateKey,
} from './load-signer.ts';
export { personalMessageDigest, signPersonalMessage } from './personal-sign.ts';
export {
  type BlockTag,
  type CallRequest,
  type ChainRpc,
  classifySendError,
  createEthersRpc,
  type EthersRpcOptions,
  type RpcLog,
  type TxReceipt,
  verifyChain,
} from './rpc.ts';
export {
  createTxSender,
  type PreparedTx,
  type ReconcileReport,
  type SendResult,
  type Submitted,
  type TxRequest,
  type TxSender,
  type TxSenderOptions,
} from './sender.ts';
export { LocalSigner, type Signer, type TypedDataTypes, type UnsignedTx } from './signer.ts';
