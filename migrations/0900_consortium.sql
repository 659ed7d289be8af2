-- Read models of consortium nodes and networks (projections/evmNodes.ts: every node;
-- projections/consortiumNetworks.ts). A consortium node belongs to an organization and may join
-- several channels (networks), so its memberships are rows of their own.

ALTER TABLE nodes ADD COLUMN organization_id integer;
CREATE INDEX nodes_organization_idx ON nodes (organization_id);

CREATE TABLE consortium_networks (
  id              integer PRIMARY KEY,
  name            text        NOT NULL,
  channel_name    text        NOT NULL,
  description     text,
  status          text        NOT NULL,
  consensus       text        NOT NULL,
  imported        boolean     NOT NULL DEFAULT false,
  organizations   jsonb       NOT NULL,
  orderer_organizations jsonb NOT NULL,
  orderer_endpoints jsonb     NOT NULL,
  anchor_peers    jsonb       NOT NULL DEFAULT '{}',
  config_sequence bigint      NOT NULL DEFAULT 0,
  genesis_block   text        NOT NULL,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
CREATE UNIQUE INDEX consortium_networks_name_idx ON consortium_networks (lower(name));

CREATE TABLE consortium_network_nodes (
  network_id      integer     NOT NULL,
  node_id         integer     NOT NULL,
  role            text        NOT NULL,
  organization_id integer     NOT NULL,
  msp_id          text        NOT NULL,
  joined_at       timestamptz,
  PRIMARY KEY (network_id, node_id)
);
CREATE INDEX consortium_network_nodes_node_idx ON consortium_network_nodes (node_id);
