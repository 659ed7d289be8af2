// The shapes of a chaincode's source files and private data collections, checked where a
// chaincode arrives: the chaincode routes' bodies and a chaincode another instance shares.
import { Type } from '@sinclair/typebox';

export const SourceFile = Type.Object({ path: Type.String({ minLength: 1, maxLength: 200 }), content: Type.String({ maxLength: 1_000_000 }) }, { additionalProperties: false });
export const Collection = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$' }),
  policy: Type.String({ minLength: 1, maxLength: 2000, description: "member organizations: OR('Org1MSP.member','Org2MSP.member')" }),
  requiredPeerCount: Type.Integer({ minimum: 0, maximum: 100 }),
  maxPeerCount: Type.Integer({ minimum: 0, maximum: 100 }),
  blockToLive: Type.Integer({ minimum: 0 }),
  memberOnlyRead: Type.Boolean(),
  memberOnlyWrite: Type.Boolean(),
}, { additionalProperties: false });
