-- Read models of users, API keys, settings and the audit log, and the server-side sessions.

CREATE TABLE users (
  id            integer PRIMARY KEY,
  username      text        NOT NULL,
  role          text        NOT NULL,
  email         text,
  password_hash text        NOT NULL,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  last_login_at timestamptz
);
CREATE UNIQUE INDEX users_username_idx ON users (lower(username));

CREATE TABLE api_keys (
  id             integer PRIMARY KEY,
  user_id        integer     NOT NULL,
  username       text        NOT NULL,
  name           text        NOT NULL,
  key_hash       text        NOT NULL UNIQUE,
  display_prefix text        NOT NULL,
  scopes         text[]      NOT NULL,
  expires_at     timestamptz,
  created_at     timestamptz NOT NULL,
  revoked_at     timestamptz,
  revoked_reason text
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id);

CREATE TABLE settings_current (
  id         integer PRIMARY KEY,
  general    jsonb       NOT NULL,
  audit      jsonb       NOT NULL,
  version    integer     NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE audit_log (
  id            bigint      PRIMARY KEY,  -- the event's global position
  event_id      uuid        NOT NULL,
  event_type    text        NOT NULL,
  ts            timestamptz NOT NULL,
  user_id       integer,
  username      text,
  auth_method   text,
  ip_address    text,
  user_agent    text,
  session_id    text,
  action        text        NOT NULL,
  resource_type text        NOT NULL,
  resource_id   text,
  resource_name text,
  status        text        NOT NULL,
  error_message text,
  reason        text,
  before        jsonb,
  after         jsonb,
  details       jsonb,
  duration_ms   integer,
  method        text,
  endpoint      text,
  request_id    text,
  response_code integer
);
CREATE INDEX audit_log_ts_idx ON audit_log (ts DESC, id DESC);
CREATE INDEX audit_log_action_ts_idx ON audit_log (action, ts DESC);
CREATE INDEX audit_log_user_ts_idx ON audit_log (user_id, ts DESC);
CREATE INDEX audit_log_status_ts_idx ON audit_log (status, ts DESC);
CREATE INDEX audit_log_resource_ts_idx ON audit_log (resource_type, ts DESC);

-- Sessions are not events: they are short-lived secrets. Only a hash of the token is kept.
CREATE TABLE sessions (
  id           text        PRIMARY KEY,
  token_hash   text        NOT NULL UNIQUE,
  user_id      integer     NOT NULL,
  created_at   timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  ip           text,
  user_agent   text,
  revoked_at   timestamptz
);
CREATE INDEX sessions_user_idx ON sessions (user_id);
