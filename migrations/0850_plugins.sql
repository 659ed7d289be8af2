-- Installed plugins (read model of the plugin-<name> streams): the descriptor as installed, the
-- parameters of the last deploy, and installed / enabled (deployed) / disabled (stopped).
CREATE TABLE plugins (
  name         text PRIMARY KEY,
  descriptor   jsonb NOT NULL,
  parameters   jsonb,
  status       text NOT NULL CHECK (status IN ('installed', 'enabled', 'disabled')),
  installed_at timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL
);
