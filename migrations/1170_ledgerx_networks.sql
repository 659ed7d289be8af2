-- Read model of ledgerX networks (projections/ledgerx/ledgerxNetworks.ts): one row per network
-- (a Fabric-X channel with its genesis block) and one per orderer group (party) in it.
CREATE TABLE ledgerx_networks (
  id            integer PRIMARY KEY,
  name          text        NOT NULL UNIQUE,
  channel_name  text        NOT NULL,
  description   text,
  genesis_block text        NOT NULL,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL
);
CREATE TABLE ledgerx_network_nodes (
  network_id      integer NOT NULL,
  node_id         integer NOT NULL,
  role            text    NOT NULL,
  party_id        integer,
  organization_id integer NOT NULL,
  msp_id          text    NOT NULL,
  joined_at       timestamptz,
  PRIMARY KEY (network_id, node_id)
);
CREATE INDEX ledgerx_network_nodes_node_idx ON ledgerx_network_nodes (node_id);
