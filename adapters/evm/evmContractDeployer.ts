// Contract deployment and calls (a query as one raw eth_call over a kept connection, an invoke as a signed transaction), signed by a key provider: ethers builds the transaction, the provider
// signs its keccak-256 digest (KeyProvider.sign with { digest, hash: 'keccak256' }), and the
// DER signature becomes (r, s, v) by recovery against the key's public key. Works alike for
// database, Vault and KMS keys, since none of them hands out the private key.
import { AbiCoder, AbstractSigner, ContractFactory, Fragment, Interface, JsonRpcProvider, Signature, Transaction, getBytes, resolveAddress, type FunctionFragment, type TransactionLike, type TransactionReceipt, type TransactionRequest, type TypedDataDomain, type TypedDataField, type Provider } from 'ethers';
import type { KeyProvider } from '../../domain/keys/keyProvider.ts';
import type { ContractCallRequest, ContractDeployRequest, ContractInvokeRequest, EvmContractDeployer } from '../../domain/evm/evmPorts.ts';
import { UnavailableError, ValidationError } from '../../domain/shared/errors.ts';
import { toRecoverableSignature } from '../keyProviders/signingEthereum.ts';
import { EvmRpcError, keptJsonRpcCall } from './jsonRpc.ts';
import { abiJson, callRevertReason, decodeEvent } from '../../domain/evm/evmLogs.ts';

/** An ethers signer whose key stays in the key provider. */
export function keyProviderSigner(provider: KeyProvider, handle: string, publicKeyPem: string, address: string, rpc: Provider | null): AbstractSigner {
  class ProviderSigner extends AbstractSigner {
    async getAddress() {
      return address;
    }
    connect(p: Provider | null) {
      return keyProviderSigner(provider, handle, publicKeyPem, address, p);
    }
    async signTransaction(request: TransactionRequest): Promise<string> {
      // sendTransaction hands over a Transaction, whose fields are getters a spread would drop.
      const tx =
        request instanceof Transaction
          ? request.clone()
          : Transaction.from({ ...request, to: request.to ? await resolveAddress(request.to, this.provider) : request.to, from: undefined } as TransactionLike<string>);
      const digest = Buffer.from(getBytes(tx.unsignedHash));
      const der = await provider.sign(handle, { algorithm: 'EC', curve: 'secp256k1' }, { digest, hash: 'keccak256' });
      const rs = toRecoverableSignature(der, digest, publicKeyPem);
      tx.signature = Signature.from({ r: rs.r, s: rs.s, v: rs.v });
      return tx.serialized;
    }
    async signMessage(): Promise<string> {
      throw new ValidationError('This signer only signs transactions.');
    }
    async signTypedData(_d: TypedDataDomain, _t: Record<string, TypedDataField[]>, _v: Record<string, unknown>): Promise<string> {
      throw new ValidationError('This signer only signs transactions.');
    }
  }
  return new ProviderSigner(rpc);
}

const HEX = /^0x([0-9a-fA-F]{2})*$/;

type Fees = { type: 0; gasPrice: bigint } | { type: 2; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

/** What signing and paying for a transaction needs: a deployment and an invoke alike. */
type SignedSend = Pick<ContractDeployRequest, 'providerId' | 'keyHandle' | 'publicKeyPem' | 'from' | 'gasLimit' | 'timeoutMs' | 'gas' | 'fundingHint'>;

/**
 * Free gas: a legacy transaction at gas price 0, valid on a zero-base-fee chain whose nodes
 * accept price 0 (besu --min-gas-price=0, anvil --gas-price 0), so the key needs no ether.
 * Priced: EIP-1559 with room for the base fee to double, and a tip that keeps the effective
 * price (base fee + tip) at or above the network's min_gas_price, below which besu skips it.
 */
async function feesFor(rpc: JsonRpcProvider, req: SignedSend): Promise<Fees> {
  if (req.gas.free) return { type: 0, gasPrice: 0n };
  const block = await rpc.getBlock('latest');
  const baseFee = block?.baseFeePerGas ?? 0n;
  const suggested = await rpc.send('eth_maxPriorityFeePerGas', []).then((v: string) => BigInt(v)).catch(() => 1_000_000_000n);
  const tip = suggested > req.gas.minGasPrice ? suggested : req.gas.minGasPrice;
  return { type: 2, maxFeePerGas: baseFee * 2n + tip, maxPriorityFeePerGas: tip };
}

// ethers maps geth/anvil's "insufficient funds" to INSUFFICIENT_FUNDS; besu says "Upfront cost
// exceeds account balance" (TransactionInvalidReason.UPFRONT_COST_EXCEEDS_BALANCE).
function isInsufficientFunds(err: unknown): boolean {
  return (err as { code?: string }).code === 'INSUFFICIENT_FUNDS' || /insufficient funds|upfront cost exceeds account balance/i.test(rpcMessage(err));
}

function rpcMessage(err: unknown): string {
  const e = err as Error & { shortMessage?: string; error?: { message?: string } };
  return e.error?.message ?? e.shortMessage ?? e.message;
}

/** The words of what is sent: "deploy"/"deployment" or "invoke"/"transaction". */
interface Wording {
  verb: string;
  noun: string;
  /** The request field a revert is blamed on. */
  revertField: string;
}

function notEnoughFunds(req: SignedSend, w: Wording, amounts: { balance: bigint; needed: bigint } | null): ValidationError {
  const figures = amounts ? ` It holds ${amounts.balance} wei; this ${w.noun} needs up to ${amounts.needed} wei of gas at the network's prices.` : '';
  return new ValidationError(`The key ${req.from} has not enough funds to ${w.verb}.${figures} ${req.fundingHint}`, [{ field: 'from', message: 'insufficient funds' }]);
}

/**
 * A provider for the node, refused unless it answers with the network's chain id. One request per
 * JSON-RPC message: ethers' default batching would hold every call back 10 ms waiting for more.
 */
async function connect(rpcUrl: string, chainId: number): Promise<JsonRpcProvider> {
  const rpc = new JsonRpcProvider(rpcUrl, chainId, { staticNetwork: true, polling: true, pollingInterval: 250, batchMaxCount: 1 });
  try {
    const nodeChainId = Number(await rpc.send('eth_chainId', []).catch((err: Error) => {
      throw new UnavailableError(`The node at ${rpcUrl} does not answer: ${err.message}`);
    }));
    if (nodeChainId !== chainId) throw new UnavailableError(`The node reports chain id ${nodeChainId}, not the network's ${chainId}.`);
    return rpc;
  } catch (err) {
    rpc.destroy();
    throw err;
  }
}

const MAX_PROVIDERS = 64;

/**
 * Providers kept between contract calls, one per node URL and chain id (its chain id checked once,
 * its HTTP connections kept alive by Node's global agent), so a call is one JSON-RPC round trip.
 * One that fails to reach its node is dropped (a node restarted elsewhere gets a fresh one, checked
 * again); the oldest is dropped past MAX_PROVIDERS.
 */
function providerPool() {
  const kept = new Map<string, Promise<JsonRpcProvider>>();
  const drop = (key: string, p: Promise<JsonRpcProvider>) => {
    if (kept.get(key) !== p) return;
    kept.delete(key);
    p.then((rpc) => rpc.destroy(), () => undefined);
  };
  return {
    async use<T>(rpcUrl: string, chainId: number, work: (rpc: JsonRpcProvider) => Promise<T>): Promise<T> {
      const key = `${chainId} ${rpcUrl}`;
      let p = kept.get(key);
      if (!p) {
        if (kept.size >= MAX_PROVIDERS) {
          const [oldest, op] = kept.entries().next().value!;
          drop(oldest, op);
        }
        p = connect(rpcUrl, chainId);
        kept.set(key, p);
      }
      const mine = p;
      const rpc = await mine.catch((err) => {
        drop(key, mine);
        throw err;
      });
      try {
        return await work(rpc);
      } catch (err) {
        if (err instanceof UnavailableError) drop(key, mine);
        throw err;
      }
    },
    close() {
      for (const [key, p] of [...kept]) drop(key, p);
    },
  };
}

/** Estimates, checks the funds, signs through the key provider, sends and waits for the receipt (status 1 or a 400). */
async function sendSigned(rpc: JsonRpcProvider, providerFor: (providerId: number) => Promise<KeyProvider>, req: SignedSend, tx: { data: string; to?: string }, w: Wording): Promise<TransactionReceipt> {
  const signer = keyProviderSigner(await providerFor(req.providerId), req.keyHandle, req.publicKeyPem, req.from, rpc);
  const fees = await feesFor(rpc, req);
  // Estimated without a price: nodes then do not cap the gas by the key's balance (anvil
  // answers an unfunded priced estimate with a bare out-of-gas), and the check below says why.
  const gasLimit = req.gasLimit ?? (await rpc.estimateGas({ from: req.from, ...tx }).catch((err: Error & { shortMessage?: string }) => {
    if (isInsufficientFunds(err)) throw notEnoughFunds(req, w, null);
    if ((err as { code?: string }).code === 'CALL_EXCEPTION') throw new ValidationError(`The ${w.noun} reverts on this chain: ${revertReason(err)}`, [{ field: w.revertField, message: 'reverted' }]);
    throw new UnavailableError(`The node refused the ${w.noun}: ${rpcMessage(err)}`);
  }));
  // A priced network: refuse up front, with the amount, when the key cannot pay for the gas.
  const price = 'gasPrice' in fees ? fees.gasPrice : fees.maxFeePerGas;
  if (price > 0n) {
    const balance = await rpc.getBalance(req.from);
    if (balance < gasLimit * price) throw notEnoughFunds(req, w, { balance, needed: gasLimit * price });
  }
  const sent = await signer.sendTransaction({ ...tx, gasLimit, ...fees }).catch((err: Error & { shortMessage?: string }) => {
    if (isInsufficientFunds(err)) throw notEnoughFunds(req, w, null);
    throw new UnavailableError(`The node refused the ${w.noun}: ${rpcMessage(err)}`);
  });
  const receipt = await sent.wait(1, req.timeoutMs).catch((err: Error & { receipt?: TransactionReceipt }) => {
    if ((err as { code?: string }).code === 'CALL_EXCEPTION' && err.receipt) return err.receipt;
    throw new UnavailableError(`No receipt for ${sent.hash} within ${req.timeoutMs} ms: ${(err as { shortMessage?: string }).shortMessage ?? err.message}`);
  });
  if (!receipt || receipt.status !== 1) throw new ValidationError(`The ${w.noun} ${sent.hash} reverted${receipt ? ` in block ${receipt.blockNumber}` : ''}.`, [{ field: w.revertField, message: 'reverted' }]);
  return receipt;
}

const QUERY_TIMEOUT_MS = 30_000;

/** A revert's reason as the node and ethers tell it (the Error(string) message when there is one). */
function revertReason(err: unknown): string {
  const e = err as { reason?: string | null; revert?: { args?: unknown[] } | null; shortMessage?: string };
  if (e.reason) return e.reason;
  if (e.revert?.args?.length) return String(e.revert.args[0]);
  return rpcMessage(err);
}

// ABIs parsed once: the route cache (application/evm/evmContractRoutes.ts) hands the same ABI
// array to every call until a projected event replaces it, and a new array is parsed anew.
const interfaces = new WeakMap<object, Interface>();

function interfaceOf(abi: unknown[]): Interface {
  let iface = interfaces.get(abi);
  if (iface) return iface;
  // ethers skips a fragment it cannot read (with a console warning) and then reports its function
  // missing: each is read here first, so a broken entry is a 400 that says which.
  abi.forEach((entry, i) => {
    try {
      Fragment.from(entry as never);
    } catch (err) {
      throw new ValidationError(`The contract's ABI cannot be read: entry ${i} (${JSON.stringify(entry)?.slice(0, 120)}) is not an ABI fragment: ${(err as { shortMessage?: string }).shortMessage ?? (err as Error).message.split('(')[0].trim()}`, [{ field: `abi[${i}]`, message: 'not an ABI fragment' }]);
    }
  });
  try {
    iface = new Interface(abi as never);
  } catch (err) {
    throw new ValidationError(`The contract's ABI cannot be read: ${(err as Error).message.split('(')[0].trim()}`, [{ field: 'abi', message: 'not a valid ABI' }]);
  }
  interfaces.set(abi, iface);
  return iface;
}

// Per parsed ABI, the functions already looked up by name or signature, with their selectors:
// ethers hashes the signature anew (keccak-256) on every encodeFunctionData.
const looked = new WeakMap<Interface, Map<string, { fn: FunctionFragment; selector: string }>>();
const coder = AbiCoder.defaultAbiCoder();

/** The ABI as an ethers Interface and the named function in it; a 400 naming what is wrong. */
function functionOf(req: ContractCallRequest): { iface: Interface; fn: FunctionFragment; data: string } {
  const iface = interfaceOf(req.abi);
  let byName = looked.get(iface);
  if (!byName) looked.set(iface, (byName = new Map()));
  let found = byName.get(req.function);
  if (!found) {
    let fn: FunctionFragment | null;
    try {
      fn = iface.getFunction(req.function);
    } catch (err) {
      throw new ValidationError(`Function ${req.function} is ambiguous in the contract's ABI; name it by its signature, e.g. ${iface.fragments.filter((f) => f.type === 'function' && (f as FunctionFragment).name === req.function).map((f) => (f as FunctionFragment).format()).join(' or ')}.`, [{ field: 'function', message: 'ambiguous' }]);
    }
    if (!fn) throw new ValidationError(`The contract's ABI has no function ${req.function}.`, [{ field: 'function', message: 'not in the ABI' }]);
    found = { fn, selector: fn.selector };
    if (byName.size < 256) byName.set(req.function, found);
  }
  const { fn, selector } = found;
  let data: string;
  try {
    data = selector + coder.encode(fn.inputs, req.args).slice(2);
  } catch (err) {
    throw new ValidationError(`Arguments do not match ${fn.format()}: ${(err as { shortMessage?: string }).shortMessage ?? (err as Error).message.split('(')[0].trim()}`, [{ field: 'args', message: `do not match ${fn.format()}` }]);
  }
  return { iface, fn, data };
}

export function createEvmContractDeployer(providerFor: (providerId: number) => Promise<KeyProvider>): EvmContractDeployer & { close(): void } {
  const providers = providerPool();
  return {
    close: () => providers.close(),
    async deploy(req: ContractDeployRequest) {
      const bytecode = req.bytecode.startsWith('0x') ? req.bytecode : '0x' + req.bytecode;
      if (!HEX.test(bytecode) || bytecode.length < 4) throw new ValidationError('bytecode must be hex.', [{ field: 'bytecode', message: 'must be 0x-prefixed hex' }]);
      const rpc = await connect(req.rpcUrl, req.chainId);
      try {
        let data: string;
        if (req.encodedArgs !== null) {
          const extra = req.encodedArgs.replace(/^0x/, '');
          if (!HEX.test('0x' + extra)) throw new ValidationError('constructorArgs must be hex.', [{ field: 'constructorArgs', message: 'must be hex' }]);
          data = bytecode + extra;
        } else if (req.abi) {
          try {
            const factory = new ContractFactory(req.abi as never, bytecode);
            data = (await factory.getDeployTransaction(...req.args)).data;
          } catch (err) {
            throw new ValidationError(`Constructor arguments do not match the ABI: ${(err as Error).message.split('(')[0].trim()}`, [{ field: 'args', message: 'do not match the constructor of the ABI' }]);
          }
        } else {
          if (req.args.length) throw new ValidationError('Constructor arguments need the ABI (or send them pre-encoded).', [{ field: 'abi', message: 'is required with args' }]);
          data = bytecode;
        }
        const receipt = await sendSigned(rpc, providerFor, req, { data }, { verb: 'deploy', noun: 'deployment', revertField: 'bytecode' });
        if (!receipt.contractAddress) throw new ValidationError(`The deployment transaction ${receipt.hash} created no contract.`, [{ field: 'bytecode', message: 'constructor reverted' }]);
        return { address: receipt.contractAddress, transactionHash: receipt.hash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed.toString(), from: req.from };
      } finally {
        rpc.destroy();
      }
    },

    // eth_call as one JSON-RPC POST over a kept connection (keptJsonRpcCall), not through the
    // ethers provider: the provider is kept only for its chain-id check (providers.use).
    async query(req: ContractCallRequest) {
      const { iface, fn, data } = functionOf(req);
      return providers.use(req.rpcUrl, req.chainId, async () => {
        const raw = await keptJsonRpcCall<unknown>(req.rpcUrl, 'eth_call', [{ to: req.address, data }, 'latest'], QUERY_TIMEOUT_MS).catch((err: unknown) => {
          if (err instanceof EvmRpcError) throw new ValidationError(`${fn.format()} reverted: ${callRevertReason(iface, err.rpcData, err.rpcMessage, req.address, data)}`, [{ field: 'function', message: 'reverted' }]);
          throw err;
        });
        if (typeof raw !== 'string' || !HEX.test(raw)) throw new UnavailableError(`The node answered eth_call with ${JSON.stringify(raw)?.slice(0, 80)}, not hex data.`);
        if (raw === '0x' && fn.outputs.length) throw new ValidationError(`${fn.format()} returned nothing: is there a contract with this ABI at ${req.address}?`, [{ field: 'function', message: 'no return data' }]);
        let result: unknown[];
        try {
          result = abiJson(iface.decodeFunctionResult(fn, raw)) as unknown[];
          if (!Array.isArray(result)) result = Object.values(result as object);
        } catch (err) {
          throw new ValidationError(`The answer of ${fn.format()} does not decode with the ABI: ${(err as { shortMessage?: string }).shortMessage ?? (err as Error).message}`, [{ field: 'function', message: 'undecodable answer' }]);
        }
        return { signature: fn.format(), result, raw };
      });
    },

    async invoke(req: ContractInvokeRequest) {
      const { iface, fn, data } = functionOf(req);
      return providers.use(req.rpcUrl, req.chainId, async (rpc) => {
        const receipt = await sendSigned(rpc, providerFor, req, { data, to: req.address }, { verb: 'invoke', noun: 'transaction', revertField: 'function' });
        const events = receipt.logs.map((log) => decodeEvent(log.address.toLowerCase() === req.address.toLowerCase() ? iface : null, log));
        return { signature: fn.format(), transactionHash: receipt.hash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed.toString(), from: req.from, events };
      });
    },
  };
}
