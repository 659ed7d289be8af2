// STS AssumeRole for the KMS stand-in (AWS query protocol: form-encoded POST, XML answer), so
// the KMS provider's role-assumption mode can be tested: the caller must be a principal the
// role trusts, must present the external id when the role requires one, and gets temporary
// credentials (with a session token) that the KMS side then accepts with the role's actions.
import { randomBytes, randomUUID } from 'node:crypto';
import type { KmsPrincipal } from './kmsStandin.ts';

export interface KmsStandinRole {
  roleArn: string;
  /** Access key ids allowed to assume the role (the trust policy). */
  trustedAccessKeyIds: string[];
  /** When set, AssumeRole must carry exactly this ExternalId (sts:ExternalId condition). */
  externalId?: string;
  allowedActions?: string[];
}

const xmlEscape = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function stsError(code: string, message: string, status = 403): { status: number; xml: string } {
  return {
    status,
    xml: `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  };
}

/** Handles one STS request; on success adds the temporary principal to `principals`. */
export function handleSts(
  params: URLSearchParams,
  caller: KmsPrincipal,
  roles: KmsStandinRole[],
  principals: KmsPrincipal[],
  accountId: string,
): { status: number; xml: string } {
  if (params.get('Action') !== 'AssumeRole') return stsError('InvalidAction', `Could not find operation ${params.get('Action')} for version ${params.get('Version')}`, 400);
  const roleArn = params.get('RoleArn') ?? '';
  const sessionName = params.get('RoleSessionName') ?? '';
  if (!/^[\w+=,.@-]{2,64}$/.test(sessionName)) return stsError('ValidationError', `1 validation error detected: Value '${sessionName}' at 'roleSessionName' failed to satisfy constraint`, 400);
  const role = roles.find((r) => r.roleArn === roleArn);
  const denied = stsError('AccessDenied', `User: arn:aws:iam::${accountId}:user/${caller.userName} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`);
  if (!role || !role.trustedAccessKeyIds.includes(caller.accessKeyId)) return denied;
  if (role.externalId !== undefined && params.get('ExternalId') !== role.externalId) return denied;

  const temp: KmsPrincipal = {
    userName: `assumed-role/${roleArn.split('/').pop()}/${sessionName}`,
    accessKeyId: 'ASIA' + randomBytes(8).toString('hex').toUpperCase(),
    secretAccessKey: randomBytes(30).toString('base64'),
    sessionToken: randomBytes(48).toString('base64'),
    allowedActions: role.allowedActions,
  };
  principals.push(temp);
  const expiration = new Date(Date.now() + Number(params.get('DurationSeconds') ?? 3600) * 1000).toISOString();
  return {
    status: 200,
    xml:
      `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>` +
      `<Credentials><AccessKeyId>${temp.accessKeyId}</AccessKeyId><SecretAccessKey>${xmlEscape(temp.secretAccessKey)}</SecretAccessKey>` +
      `<SessionToken>${xmlEscape(temp.sessionToken!)}</SessionToken><Expiration>${expiration}</Expiration></Credentials>` +
      `<AssumedRoleUser><AssumedRoleId>AROA${randomBytes(8).toString('hex').toUpperCase()}:${xmlEscape(sessionName)}</AssumedRoleId>` +
      `<Arn>arn:aws:sts::${accountId}:${xmlEscape(temp.userName)}</Arn></AssumedRoleUser></AssumeRoleResult>` +
      `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></AssumeRoleResponse>`,
  };
}
