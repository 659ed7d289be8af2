-- Login throttling counters shared by every instance on this database (adapters/postgres/loginGuard.ts):
-- one row per `user:<name>` or `ip:<address>` key with its failures in the window and its lockout.
CREATE TABLE login_throttle (
  key          text        PRIMARY KEY,
  entry        jsonb       NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
