-- Checkpoints of the projector (one row per projection) and of each saga.
CREATE TABLE projection_checkpoints (
  name     text PRIMARY KEY,
  position bigint NOT NULL DEFAULT 0
);

CREATE TABLE saga_checkpoints (
  name     text PRIMARY KEY,
  position bigint NOT NULL DEFAULT 0
);

-- Idempotency: an event a saga has handled is recorded here (at-least-once delivery).
CREATE TABLE saga_processed (
  saga     text   NOT NULL,
  event_id uuid   NOT NULL,
  handled_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (saga, event_id)
);

-- Durable timers: retries, schedules, probes, expiry checks survive a restart.
CREATE TABLE saga_timers (
  id        text        PRIMARY KEY,
  saga      text        NOT NULL,
  due_at    timestamptz NOT NULL,
  payload   jsonb       NOT NULL DEFAULT '{}',
  fired_at  timestamptz
);
CREATE INDEX saga_timers_due_idx ON saga_timers (due_at) WHERE fired_at IS NULL;

-- Integer identifiers for resources, handed out before the command runs (the domain never
-- generates ids). Gaps are harmless.
CREATE TABLE id_counters (
  kind text PRIMARY KEY,
  last bigint NOT NULL
);
