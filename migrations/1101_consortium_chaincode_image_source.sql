-- Where a chaincode's code comes from (projections/consortiumChaincodes.ts): its files, or a
-- chaincode-as-a-service container image under the docker engine.
ALTER TABLE consortium_chaincodes ADD COLUMN source_kind text NOT NULL DEFAULT 'files';
ALTER TABLE consortium_chaincodes ADD COLUMN source_image text;
