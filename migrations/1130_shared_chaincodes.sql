-- A chaincode definition received from another instance through node sharing
-- (sharing.chaincode.received): {sharingPeerId, instanceId, chaincodeId} of the sharing side.
ALTER TABLE consortium_chaincodes ADD COLUMN shared_from jsonb;
