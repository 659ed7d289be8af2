// Contract deployment signed by a key provider: ethers builds the transaction, the provider
// signs its keccak-256 digest (KeyProvider.sign with { digest, hash: 'keccak256' }), and the
// DER signature becomes (r, s, v) by recovery against the key's public key. Works alike for
// database, Vault and KMS keys, since none of them hands out the private key.
import { AbstractSigner, ContractFactory, JsonRpcProvider, Signature, Transaction, getBytes, resolveAddress, type TransactionLike, type TransactionRequest, type TypedDataDomain, type TypedDataField, type Provider } from 'ethers';
import type { KeyProvider } from '../../domain/keys/keyProvider.ts';
import type { ContractDeployRequest, EvmContractDeployer } from '../../domain/evm/evmPorts.ts';
import { UnavailableError, ValidationError } from '../../domain/shared/errors.ts';
import { toRecoverableSignature } from '../keyProviders/signingEthereum.ts';

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

/**
 * Free gas: a legacy transaction at gas price 0, valid on a zero-base-fee chain whose nodes
 * accept price 0 (besu --min-gas-price=0, anvil --gas-price 0), so the key needs no ether.
 * Priced: EIP-1559 with room for the base fee to double, and a tip that keeps the effective
 * price (base fee + tip) at or above the network's min_gas_price, below which besu skips it.
 */
async function feesFor(rpc: JsonRpcProvider, req: ContractDeployRequest): Promise<Fees> {
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

function notEnoughFunds(req: ContractDeployRequest, amounts: { balance: bigint; needed: bigint } | null): ValidationError {
  const figures = amounts ? ` It holds ${amounts.balance} wei; this deployment needs up to ${amounts.needed} wei of gas at the network's prices.` : '';
  return new ValidationError(`The key ${req.from} has not enough funds to deploy.${figures} ${req.fundingHint}`, [{ field: 'from', message: 'insufficient funds' }]);
}

export function createEvmContractDeployer(providerFor: (providerId: number) => Promise<KeyProvider>): EvmContractDeployer {
  return {
    async deploy(req: ContractDeployRequest) {
      const bytecode = req.bytecode.startsWith('0x') ? req.bytecode : '0x' + req.bytecode;
      if (!HEX.test(bytecode) || bytecode.length < 4) throw new ValidationError('bytecode must be hex.', [{ field: 'bytecode', message: 'must be 0x-prefixed hex' }]);
      const rpc = new JsonRpcProvider(req.rpcUrl, req.chainId, { staticNetwork: true, polling: true, pollingInterval: 250 });
      try {
        const nodeChainId = Number(await rpc.send('eth_chainId', []).catch((err: Error) => {
          throw new UnavailableError(`The node at ${req.rpcUrl} does not answer: ${err.message}`);
        }));
        if (nodeChainId !== req.chainId) throw new UnavailableError(`The node reports chain id ${nodeChainId}, not the network's ${req.chainId}.`);
        const signer = keyProviderSigner(await providerFor(req.providerId), req.keyHandle, req.publicKeyPem, req.from, rpc);
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
        const fees = await feesFor(rpc, req);
        // Estimated without a price: nodes then do not cap the gas by the key's balance (anvil
        // answers an unfunded priced estimate with a bare out-of-gas), and the check below says why.
        const gasLimit = req.gasLimit ?? (await rpc.estimateGas({ from: req.from, data }).catch((err: Error & { shortMessage?: string }) => {
          if (isInsufficientFunds(err)) throw notEnoughFunds(req, null);
          if ((err as { code?: string }).code === 'CALL_EXCEPTION') throw new ValidationError(`The constructor reverts on this chain: ${rpcMessage(err)}`, [{ field: 'bytecode', message: 'constructor reverted' }]);
          throw new UnavailableError(`The node refused the deployment: ${rpcMessage(err)}`);
        }));
        // A priced network: refuse up front, with the amount, when the key cannot pay for the gas.
        const price = 'gasPrice' in fees ? fees.gasPrice : fees.maxFeePerGas;
        if (price > 0n) {
          const balance = await rpc.getBalance(req.from);
          if (balance < gasLimit * price) throw notEnoughFunds(req, { balance, needed: gasLimit * price });
        }
        const sent = await signer.sendTransaction({ data, gasLimit, ...fees }).catch((err: Error & { shortMessage?: string }) => {
          if (isInsufficientFunds(err)) throw notEnoughFunds(req, null);
          throw new UnavailableError(`The node refused the deployment: ${rpcMessage(err)}`);
        });
        const receipt = await sent.wait(1, req.timeoutMs).catch((err: Error) => {
          throw new UnavailableError(`No receipt for ${sent.hash} within ${req.timeoutMs} ms: ${(err as { shortMessage?: string }).shortMessage ?? err.message}`);
        });
        if (!receipt || receipt.status !== 1 || !receipt.contractAddress) throw new ValidationError(`The deployment transaction ${sent.hash} reverted.`, [{ field: 'bytecode', message: 'constructor reverted' }]);
        return { address: receipt.contractAddress, transactionHash: receipt.hash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed.toString(), from: req.from };
      } finally {
        rpc.destroy();
      }
    },
  };
}

