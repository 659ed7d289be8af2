-- Custom header values of webhooks are secrets: the read model keeps them sealed under
-- KEY_ENCRYPTION_KEY (custom_headers then holds the names with masked values).
ALTER TABLE webhooks ADD COLUMN IF NOT EXISTS sealed_headers text;
