// A smart contract deployed on an evm network through the service (POST /sc/evm/deploy), as an
// aggregate of its own (stream evm-contract-<id>): what was deployed (name, ABI, creation
// bytecode, constructor arguments), where (network, address) and by which transaction. The
// record is what a template export lists in network.smartContracts, so an import deploys the
// same contracts on the new chain.
import { ConflictError, ValidationError, type FieldIssue } from '../shared/errors.ts';
import { assertNever, type Decider, type DomainEvent } from '../shared/decider.ts';

export const evmContractStream = (contractId: number) => `evm-contract-${contractId}`;

/** A contract's name: what a user calls it (templates carry it); letters, digits and . _ - (1-128). */
export const CONTRACT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface ContractDeployedData {
  contractId: number;
  networkId: number;
  name: string;
  address: string;
  /** JSON ABI as given, or null. */
  abi: unknown[] | null;
  /** Creation bytecode, hex (0x-prefixed). */
  bytecode: string;
  /** Constructor arguments as given (encoded with the ABI), or null. */
  args: unknown[] | null;
  /** Pre-encoded constructor arguments, hex, or null. */
  constructorArgs: string | null;
  transactionHash: string;
  blockNumber: number;
  from: string;
  nodeId: number;
  at: string;
}

export type EvmContractEvent = DomainEvent<'ContractDeployed', ContractDeployedData>;
export type EvmContractCommand = { type: 'RecordContractDeployed' } & ContractDeployedData;
export interface EvmContractState {
  contract: ContractDeployedData | null;
}

export function contractNameIssues(name: string): FieldIssue[] {
  return CONTRACT_NAME.test(name) ? [] : [{ field: 'name', message: 'letters, digits, ".", "_" and "-", 1-128 characters, starting with a letter or digit' }];
}

export const evmContract: Decider<EvmContractState, EvmContractCommand, EvmContractEvent> = {
  initialState: () => ({ contract: null }),
  evolve(state, e) {
    switch (e.type) {
      case 'ContractDeployed':
        return { contract: e.data };
      default:
        return assertNever(e.type);
    }
  },
  decide(c, state) {
    switch (c.type) {
      case 'RecordContractDeployed': {
        if (state.contract) throw new ConflictError(`Contract ${c.contractId} is already recorded.`);
        const issues = contractNameIssues(c.name);
        if (!/^0x[0-9a-fA-F]{40}$/.test(c.address)) issues.push({ field: 'address', message: 'an address' });
        if (issues.length) throw new ValidationError(`Invalid contract record: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
        const { type: _t, ...data } = c;
        return [{ type: 'ContractDeployed', data }];
      }
      default:
        return assertNever(c.type);
    }
  },
};
