-- Read models of backups: targets (secrets only sealed), schedules and backups.
CREATE TABLE backup_targets (
  id              integer     PRIMARY KEY,
  name            text        NOT NULL,
  public_config   jsonb       NOT NULL,
  sealed_secrets  text        NOT NULL,
  reachable       boolean     NOT NULL DEFAULT true,
  last_error      text,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
CREATE UNIQUE INDEX backup_targets_name_idx ON backup_targets (lower(name));

CREATE TABLE backup_schedules (
  id              integer     PRIMARY KEY,
  name            text        NOT NULL,
  description     text,
  cron_expression text        NOT NULL,
  target_id       integer     NOT NULL,
  node_ids        jsonb,
  retention       jsonb       NOT NULL,
  enabled         boolean     NOT NULL,
  last_backup_id  integer,
  last_run_at     timestamptz,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
CREATE UNIQUE INDEX backup_schedules_name_idx ON backup_schedules (lower(name));

CREATE TABLE backups (
  id              integer     PRIMARY KEY,
  target_id       integer     NOT NULL,
  node_id         integer,
  schedule_id     integer,
  status          text        NOT NULL,
  error           text,
  snapshot_id     text,
  event_position  bigint,
  size_added      bigint,
  total_size      bigint,
  files           bigint,
  duration_ms     bigint,
  created_at      timestamptz NOT NULL,
  started_at      timestamptz,
  completed_at    timestamptz
);
CREATE INDEX backups_created_idx ON backups (created_at DESC, id DESC);
CREATE INDEX backups_schedule_idx ON backups (schedule_id, id);
