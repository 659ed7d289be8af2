-- Read models of key providers, organizations, keys and the certificates issued to them
-- (projections/keyProviders.ts, organizations.ts, keys.ts). Rebuildable from the event log.
-- The built-in database provider (id 1) is not a row: it exists on every server.
CREATE TABLE key_providers (
  id             integer     PRIMARY KEY,
  name           text        NOT NULL,
  type           text        NOT NULL CHECK (type IN ('VAULT', 'AWS_KMS')),
  is_default     boolean     NOT NULL DEFAULT false,
  -- What the API may show; secrets live only in sealed_config, encrypted under KEY_ENCRYPTION_KEY.
  public_config  jsonb       NOT NULL,
  sealed_config  text        NOT NULL,
  created_at     timestamptz NOT NULL
);

CREATE TABLE organizations (
  id             integer     PRIMARY KEY,
  name           text        NOT NULL,
  msp_id         text        NOT NULL UNIQUE,
  description    text,
  provider_id    integer     NOT NULL,
  sign_key_id    integer,
  tls_key_id     integer,
  admin_key_id   integer,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);

CREATE TABLE keys (
  id               integer     PRIMARY KEY,
  name             text        NOT NULL,
  description      text,
  purpose          text        NOT NULL,
  provider_id      integer     NOT NULL,
  organization_id  integer,
  algorithm        text        NOT NULL,
  curve            text,
  key_size         integer,
  handle           text        NOT NULL,
  public_key_pem   text        NOT NULL,
  ethereum_address text,
  imported         boolean     NOT NULL DEFAULT false,
  certificate_pem  text,
  serial_number    text,
  subject          text,
  not_before       timestamptz,
  not_after        timestamptz,
  is_ca            boolean     NOT NULL DEFAULT false,
  issuer_key_id    integer,
  rotation_enabled boolean     NOT NULL DEFAULT false,
  rotation_interval_days integer,
  last_rotated_at  timestamptz,
  expiry_status    text        NOT NULL DEFAULT 'valid',
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
CREATE INDEX keys_organization_idx ON keys (organization_id);
CREATE INDEX keys_provider_idx ON keys (provider_id);

-- Every certificate a key ever had, and revocations by the CA that issued it (for the CRL).
CREATE TABLE certificates (
  serial_number  text        NOT NULL,
  issuer_key_id  integer     NOT NULL,
  key_id         integer     NOT NULL,
  not_after      timestamptz NOT NULL,
  issued_at      timestamptz NOT NULL,
  revoked_at     timestamptz,
  revocation_reason text,
  PRIMARY KEY (issuer_key_id, serial_number)
);
CREATE INDEX certificates_key_idx ON certificates (key_id);
