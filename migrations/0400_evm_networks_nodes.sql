-- Read models of evm networks and nodes (projections/evmNetworks.ts, projections/evmNodes.ts).

CREATE TABLE evm_networks (
  id                 integer PRIMARY KEY,
  name               text        NOT NULL,
  description        text,
  client             text        NOT NULL,
  engine             text        NOT NULL,
  consensus          text        NOT NULL,
  chain_id           bigint      NOT NULL,
  genesis_block_hash text        NOT NULL,
  block_period       integer     NOT NULL,
  validators         jsonb       NOT NULL,
  genesis            jsonb       NOT NULL,
  imported           boolean     NOT NULL DEFAULT false,
  created_at         timestamptz NOT NULL
);
CREATE UNIQUE INDEX evm_networks_name_idx ON evm_networks (lower(name));

CREATE TABLE nodes (
  id                integer PRIMARY KEY,
  name              text        NOT NULL,
  platform          text        NOT NULL,
  node_type         text        NOT NULL,
  role              text        NOT NULL,
  network_id        integer,
  client            text        NOT NULL,
  engine            text        NOT NULL,
  config            jsonb       NOT NULL,
  validator_address text,
  resources         jsonb,
  status            text        NOT NULL,
  error             text,
  started_at        timestamptz,
  down_since        timestamptz,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL
);
CREATE UNIQUE INDEX nodes_name_idx ON nodes (lower(name));
CREATE INDEX nodes_network_idx ON nodes (network_id);
