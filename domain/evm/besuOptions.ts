// Every besu option this project writes, each checked against the besu documentation:
//   https://besu.hyperledger.org/public-networks/reference/cli/options  (anchor = option name)
//   https://besu.hyperledger.org/private-networks/reference/cli/options (private-network options)
// and against the besu 24.12.2 sources (test/golden/evm/besuCliOptions-24.12.2.txt). The TOML
// key of an option is its name without the leading dashes
// (https://besu.hyperledger.org/public-networks/how-to/configure-besu).
export const BESU_DOCUMENTED_OPTIONS = {
  'config-file': 'public options#config-file: TOML file holding the other options',
  'data-path': 'public options#data-path',
  'genesis-file': 'public options#genesis-file',
  'network-id': 'public options#network-id',
  'node-private-key-file': 'public options#node-private-key-file',
  'p2p-enabled': 'public options#p2p-enabled',
  'p2p-host': 'public options#p2p-host: the address advertised in the enode',
  'p2p-interface': 'public options#p2p-interface: the address the P2P listener binds (default 0.0.0.0)',
  'p2p-port': 'public options#p2p-port',
  'discovery-enabled': 'public options#discovery-enabled',
  bootnodes: 'public options#bootnodes: comma-separated enode URLs',
  'max-peers': 'public options#max-peers',
  'nat-method': 'public options#nat-method: NONE when nodes talk over their configured host',
  'rpc-http-enabled': 'public options#rpc-http-enabled',
  'rpc-http-host': 'public options#rpc-http-host',
  'rpc-http-port': 'public options#rpc-http-port',
  'rpc-http-api': 'public options#rpc-http-api: ETH, NET, WEB3, ADMIN, TXPOOL, QBFT, IBFT, CLIQUE, ...',
  'rpc-ws-enabled': 'public options#rpc-ws-enabled',
  'rpc-ws-host': 'public options#rpc-ws-host',
  'rpc-ws-port': 'public options#rpc-ws-port',
  'rpc-ws-api': 'public options#rpc-ws-api',
  'host-allowlist': 'public options#host-allowlist',
  'metrics-enabled': 'public options#metrics-enabled',
  'metrics-host': 'public options#metrics-host',
  'metrics-port': 'public options#metrics-port',
  'min-gas-price': 'public options#min-gas-price: 0 accepts free transactions on a private network',
  'sync-mode': 'public options#sync-mode: FULL for private networks (no snap/checkpoint peers to rely on)',
  logging: 'public options#logging',
  'miner-enabled': 'public options#miner-enabled (PoW only in besu 24.x; removed with PoW later)',
  'miner-coinbase': 'public options#miner-coinbase (PoW only in besu 24.x)',
} as const;

export type BesuOptionName = keyof typeof BESU_DOCUMENTED_OPTIONS;

/** besu RPC API groups (docs: public options#rpc-http-api). */
export type BesuRpcApi = 'ETH' | 'NET' | 'WEB3' | 'ADMIN' | 'TXPOOL' | 'QBFT' | 'IBFT' | 'CLIQUE' | 'MINER';
