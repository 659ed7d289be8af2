// Who a node of an evm network is told about at start (besu --bootnodes), shared by the launch
// (adapters/evm/besuLaunch.ts) and the network map, so the map shows the wiring nodes really get.
//   - a bootnode: the network's other bootnodes and its validators (one added to a running
//     network joins it at once);
//   - any other node: the network's bootnodes; without any, the other validators (every
//     validator lists every other one: no single node whose absence stops the others meeting);
//     full nodes of a network without validator nodes (PoW) seed from each other.
export interface SeedCandidate {
  role: string;
}

export function seedNodes<T extends SeedCandidate>(self: T, others: T[]): T[] {
  const bootnodes = others.filter((p) => p.role === 'bootnode');
  const validators = others.filter((p) => p.role === 'validator');
  if (self.role === 'bootnode') return [...bootnodes, ...validators];
  if (bootnodes.length) return bootnodes;
  return validators.length ? validators : others;
}
