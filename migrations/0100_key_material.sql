-- Private keys held by the built-in database key provider. The private key (PKCS#8 DER) is stored
-- only encrypted: AES-256-GCM under a key derived by PBKDF2-HMAC-SHA256 from KEY_ENCRYPTION_KEY
-- with this row's own salt; the row id is the GCM additional data. Public material is plain.
CREATE TABLE IF NOT EXISTS key_material (
  id              uuid        PRIMARY KEY,
  name            text        NOT NULL,
  algorithm       text        NOT NULL CHECK (algorithm IN ('EC', 'RSA', 'ED25519')),
  curve           text        CHECK (curve IN ('P-256', 'P-384', 'P-521', 'secp256k1')),
  key_size        integer     CHECK (key_size IN (2048, 4096)),
  public_key_pem  text        NOT NULL,
  kdf_iterations  integer     NOT NULL CHECK (kdf_iterations > 0),
  salt            bytea       NOT NULL,
  iv              bytea       NOT NULL,
  ciphertext      bytea       NOT NULL,
  auth_tag        bytea       NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT key_material_salt_key UNIQUE (salt),
  CONSTRAINT key_material_curve_iff_ec CHECK ((algorithm = 'EC') = (curve IS NOT NULL)),
  CONSTRAINT key_material_size_iff_rsa CHECK ((algorithm = 'RSA') = (key_size IS NOT NULL))
);

-- One known plaintext encrypted under KEY_ENCRYPTION_KEY on first start: a later start with a
-- different key fails the check before it can encrypt anything new under the wrong key.
CREATE TABLE IF NOT EXISTS key_encryption_canary (
  id              smallint    PRIMARY KEY CHECK (id = 1),
  kdf_iterations  integer     NOT NULL CHECK (kdf_iterations > 0),
  salt            bytea       NOT NULL,
  iv              bytea       NOT NULL,
  ciphertext      bytea       NOT NULL,
  auth_tag        bytea       NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);
