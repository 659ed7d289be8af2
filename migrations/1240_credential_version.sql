-- A user's credential version (projections/users.ts): raised by each password change or reset
-- and each role downgrade. A session records the version its password was checked against
-- (adapters/postgres/sessionStore.ts): it is made only while the user is still at that version
-- and works only while the user is, so a login racing a reset never outlives it.
ALTER TABLE users ADD COLUMN credential_version integer NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN credential_version integer NOT NULL DEFAULT 0;
