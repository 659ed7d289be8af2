-- The Init transaction of chaincode definitions that require it (projections/consortiumChaincodes.ts).
ALTER TABLE consortium_chaincodes ADD COLUMN init_tx_id text;
ALTER TABLE consortium_chaincodes ADD COLUMN init_block_number bigint;
ALTER TABLE consortium_chaincodes ADD COLUMN initialized_at timestamptz;
