-- An exhausted webhook delivery is recorded in two steps that cannot share a transaction (its row
-- here, then WebhookDeliveryExhausted and maybe WebhookDisabled in the event store, which may be
-- EventStoreDB). outcome_pending marks a row whose events are not appended yet, and
-- consecutive_failures is the count they carry: the delivery worker claims such a row again
-- (after a crash, at its next start) and appends them without sending the delivery again.
ALTER TABLE webhook_deliveries ADD COLUMN outcome_pending boolean NOT NULL DEFAULT false,
  ADD COLUMN consecutive_failures integer;
CREATE INDEX webhook_deliveries_outcome_pending_idx ON webhook_deliveries (id) WHERE outcome_pending;
