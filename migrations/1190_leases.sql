-- Leases on background work (adapters/postgres/leases.ts): one row per piece of work, held by one
-- service instance until expires_at. The token grows by one each time the lease changes hands, so
-- an instance that lost its lease (expired, taken over) is told apart from the new holder by the
-- token it was given (fencing). Not rebuilt from events: a lease is coordination, not history.
CREATE TABLE leases (
  name        text        PRIMARY KEY,
  holder      text        NOT NULL,
  token       bigint      NOT NULL,
  expires_at  timestamptz NOT NULL,
  acquired_at timestamptz NOT NULL DEFAULT now()
);
