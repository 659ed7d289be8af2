-- Read model of node hosts: remote Docker Engines over mutual TLS (the client key only sealed).
CREATE TABLE node_hosts (
  id                  integer     PRIMARY KEY,
  name                text        NOT NULL,
  url                 text        NOT NULL,
  external_ip         text        NOT NULL,
  ca_certificate      text        NOT NULL,
  client_certificate  text        NOT NULL,
  sealed_secrets      text        NOT NULL,
  labels              jsonb       NOT NULL DEFAULT '{}',
  max_nodes           integer,
  reachable           boolean     NOT NULL,
  engine_version      text,
  running_nodes       integer,
  last_error          text,
  checked_at          timestamptz NOT NULL,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL
);
CREATE UNIQUE INDEX node_hosts_name_idx ON node_hosts (lower(name));
