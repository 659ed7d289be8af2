-- Users signed in through OpenID Connect are linked by (issuer, subject), never by e-mail.
ALTER TABLE users ADD COLUMN IF NOT EXISTS oidc_issuer text;
ALTER TABLE users ADD COLUMN IF NOT EXISTS oidc_subject text;
CREATE UNIQUE INDEX IF NOT EXISTS users_oidc_identity_idx ON users (oidc_issuer, oidc_subject) WHERE oidc_issuer IS NOT NULL;
