-- Read model of notification providers (projections/notificationProviders.ts). The sealed
-- secrets are kept for sending and never shown.
CREATE TABLE notification_providers (
  id                       integer     PRIMARY KEY,
  name                     text        NOT NULL,
  type                     text        NOT NULL,
  is_default               boolean     NOT NULL DEFAULT false,
  public_config            jsonb       NOT NULL,
  sealed_secrets           text,
  notify_node_downtime     boolean     NOT NULL,
  notify_backup_success    boolean     NOT NULL,
  notify_backup_failure    boolean     NOT NULL,
  notify_s3_conn_issue     boolean     NOT NULL,
  notify_disk_space_warning boolean    NOT NULL,
  last_test_status         text,
  last_test_message        text,
  last_tested_at           timestamptz,
  created_at               timestamptz NOT NULL,
  updated_at               timestamptz NOT NULL
);
CREATE UNIQUE INDEX notification_providers_name_idx ON notification_providers (lower(name));
