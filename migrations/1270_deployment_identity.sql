-- The deployment's own id (adapters/postgres/deploymentIdentity.ts): one row, made once at the first
-- start of a server on this database (INSERT ... ON CONFLICT DO NOTHING, then read back, as the
-- key-encryption canary is), so every replica on the database reads the same value. It tells this
-- deployment's objects on a shared Kubernetes cluster (label lnm.deployment) from another
-- deployment's with the same namespace and name prefix (docs/kubernetes.md "Two deployments on one
-- cluster"). Not a secret. Exported in backups: a restored database goes on managing the same objects.
CREATE TABLE deployment_identity (
  id            smallint    PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  deployment_id text        NOT NULL CHECK (deployment_id ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
  created_at    timestamptz NOT NULL DEFAULT now()
);
