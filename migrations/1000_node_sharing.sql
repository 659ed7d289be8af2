-- Read model of node sharing (projections/nodeSharing.ts): peer instances, the certificate
-- pinned for each, the public key their requests are signed with, and the node metadata last
-- received from them. Everything here is public by construction: no key material.
CREATE TABLE sharing_peers (
  id               integer     PRIMARY KEY,
  instance_id      text        NOT NULL,
  url              text        NOT NULL,
  tls_certificate  text        NOT NULL,
  tls_fingerprint  text        NOT NULL,
  public_jwk       jsonb       NOT NULL,
  role             text        NOT NULL,
  invitation_id    text        NOT NULL,
  shares_with_peer boolean     NOT NULL,
  peer_shares      boolean     NOT NULL,
  status           text        NOT NULL,
  nodes            jsonb       NOT NULL DEFAULT '[]',
  organizations    jsonb       NOT NULL DEFAULT '[]',
  networks         jsonb       NOT NULL DEFAULT '[]',
  last_sync_at     timestamptz,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
CREATE INDEX sharing_peers_instance_idx ON sharing_peers (instance_id);
