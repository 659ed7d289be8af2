-- Node hosts of kind kubernetes (issue 39): a cluster registered like a Docker host. url is the
-- API server, external_ip the address of its NodePorts, ca_certificate the API server's CA,
-- sealed_secrets the sealed bearer token; kubernetes holds namespace, storage class, volume size
-- and image settings (nothing secret).
ALTER TABLE node_hosts ADD COLUMN kind text NOT NULL DEFAULT 'docker';
ALTER TABLE node_hosts ADD COLUMN kubernetes jsonb;
