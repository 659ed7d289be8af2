-- Outbound webhooks (pro). `webhooks` is a read model (projections/webhooks.ts, rebuilt from
-- the webhook streams). The delivery tables are the working state of the webhook delivery saga,
-- like saga_timers: not rebuilt from events, kept across restarts.
CREATE TABLE webhooks (
  id              integer     PRIMARY KEY,
  name            text        NOT NULL,
  url             text        NOT NULL,
  events          text[]      NOT NULL,
  custom_headers  jsonb       NOT NULL DEFAULT '{}',
  timeout_seconds integer     NOT NULL,
  max_retries     integer     NOT NULL,
  sealed_secret   text,
  enabled         boolean     NOT NULL DEFAULT true,
  disabled_at     timestamptz,
  disabled_reason text,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
CREATE UNIQUE INDEX webhooks_name_idx ON webhooks (lower(name));
CREATE INDEX webhooks_events_idx ON webhooks USING gin (events);

-- One row per (event, webhook): the body is fixed when the event is fanned out, so every
-- attempt and every replay sends the same bytes and the same envelope id.
CREATE TABLE webhook_deliveries (
  id               uuid        PRIMARY KEY,
  webhook_id       integer     NOT NULL,
  event_id         uuid        NOT NULL,
  event_type       text        NOT NULL,
  body             text        NOT NULL,
  status           text        NOT NULL CHECK (status IN ('pending', 'retrying', 'succeeded', 'exhausted', 'cancelled')),
  attempts         integer     NOT NULL DEFAULT 0,
  max_attempts     integer     NOT NULL,
  next_attempt_at  timestamptz,
  lease_until      timestamptz,
  response_code    integer,
  response_time_ms integer,
  error            text,
  response_excerpt text,
  source_position  bigint      NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  completed_at     timestamptz
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC, id);
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (completed_at) WHERE status IN ('succeeded', 'cancelled');

-- Every attempt of a delivery, for the deliveries listing.
CREATE TABLE webhook_delivery_attempts (
  delivery_id      uuid        NOT NULL,
  attempt          integer     NOT NULL,
  at               timestamptz NOT NULL DEFAULT now(),
  response_code    integer,
  response_time_ms integer     NOT NULL,
  error            text,
  PRIMARY KEY (delivery_id, attempt)
);

-- The current run of consecutive exhausted deliveries of each webhook (gone at the first success).
CREATE TABLE webhook_failure_runs (
  webhook_id           integer PRIMARY KEY,
  consecutive_failures integer NOT NULL,
  last_error           text
);
