-- Where the managed Prometheus runs (bin/metricsStack.ts): the instance holding the
-- `work:metrics-stack` lease writes one row, each second and after each operation, with the status
-- it sees (the engine's state, version, targets), so every instance answers GET /metrics/status
-- with the holder's view; the host, pid and directory let a new holder on the same host stop a
-- Prometheus left running by a holder killed with kill -9. Written only while that lease is held
-- (checked in the statement). Not rebuilt from events: it is an observation, like the lease.
CREATE TABLE metrics_stack_runtime (
  id          smallint    PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  instance    text        NOT NULL,
  hostname    text        NOT NULL,
  pid         integer,
  dir         text        NOT NULL,
  version     bigint      NOT NULL,
  view        jsonb       NOT NULL,
  observed_at timestamptz NOT NULL DEFAULT now()
);
