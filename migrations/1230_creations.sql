-- Read model of creates that make several things (domain/creations/creation.ts): each attempt,
-- IN_PROGRESS until it COMPLETED or FAILED, with what it made and what of that was removed. An
-- IN_PROGRESS row of this instance at its start was cut off (kill -9): it is failed as interrupted.
CREATE TABLE creations (
  id           integer     PRIMARY KEY,
  kind         text        NOT NULL,
  name         text        NOT NULL,
  instance     text        NOT NULL,
  status       text        NOT NULL,
  step         text,
  message      text,
  interrupted  boolean     NOT NULL DEFAULT false,
  made         jsonb       NOT NULL DEFAULT '[]',
  removed      jsonb       NOT NULL DEFAULT '[]',
  left_over    jsonb       NOT NULL DEFAULT '[]',
  resource_id  integer,
  started_at   timestamptz NOT NULL,
  finished_at  timestamptz
);
CREATE INDEX creations_open_idx ON creations (instance) WHERE status = 'IN_PROGRESS';
