-- Read model of the smart contracts deployed through POST /sc/evm/deploy (projections/evmContracts.ts):
-- one row per deployment, listed by GET /networks/evm/{id}/contracts and exported in templates.
CREATE TABLE evm_contracts (
  id                integer PRIMARY KEY,
  network_id        integer     NOT NULL,
  name              text        NOT NULL,
  address           text        NOT NULL,
  abi               jsonb,
  bytecode          text        NOT NULL,
  args              jsonb,
  constructor_args  text,
  transaction_hash  text        NOT NULL,
  block_number      bigint      NOT NULL,
  deployer          text        NOT NULL,
  node_id           integer     NOT NULL,
  created_at        timestamptz NOT NULL
);
CREATE INDEX evm_contracts_network_idx ON evm_contracts (network_id, id);
