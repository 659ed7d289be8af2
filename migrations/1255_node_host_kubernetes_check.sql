-- The findings of a kubernetes host's cluster check (issue 39): version, nodes Ready and the
-- engine's verbs the credentials lack, as recorded by NodeHostRegistered / NodeHostObserved
-- (observation.kubernetes); null for a docker host and when the cluster did not answer.
ALTER TABLE node_hosts ADD COLUMN kubernetes_check jsonb;
