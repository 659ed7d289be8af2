-- Read model of chaincode definitions on consortium networks (projections/consortiumChaincodes.ts):
-- one row per name and version on a network, with what the peers have of it.

CREATE TABLE consortium_chaincodes (
  id                    integer PRIMARY KEY,
  network_id            integer     NOT NULL,
  channel_name          text        NOT NULL,
  name                  text        NOT NULL,
  version               text        NOT NULL,
  sequence              integer     NOT NULL,
  language              text        NOT NULL,
  endorsement_policy    text,
  init_required         boolean     NOT NULL DEFAULT false,
  collections           jsonb,
  previous_chaincode_id integer,
  status                text        NOT NULL,
  package_id            text,
  server_node_id        integer,
  server_address        text,
  installed_on          jsonb       NOT NULL DEFAULT '{}',
  approved_by           jsonb       NOT NULL DEFAULT '[]',
  commit_tx_id          text,
  commit_block_number   bigint,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL
);
CREATE UNIQUE INDEX consortium_chaincodes_version_idx ON consortium_chaincodes (network_id, name, version);
CREATE INDEX consortium_chaincodes_network_idx ON consortium_chaincodes (network_id, name, sequence);
