// The AWS KMS provider's configuration. SPEC.md shows two shapes; both are accepted:
//   { awsKmsConfig: { operation: 'IMPORT', awsRegion, kmsKeyAliasPrefix, ...auth } }
//   { config: { region, accessKeyId, secretAccessKey, kmsKeyId, ...auth } }
// The authentication fields (names chosen here, SPEC leaves them open), in either object:
//   authMethod       STATIC | PROFILE | ASSUME_ROLE | INSTANCE_ROLE
//                    default: STATIC when accessKeyId is given, ASSUME_ROLE when roleArn is,
//                    PROFILE when profile is, INSTANCE_ROLE otherwise
//   accessKeyId, secretAccessKey, sessionToken
//                    STATIC; with ASSUME_ROLE they are the base credentials (else the default chain)
//   profile          PROFILE: a named profile of ~/.aws/config and ~/.aws/credentials (SSO included)
//   roleArn          ASSUME_ROLE: the role to assume through STS
//   externalId       ASSUME_ROLE, optional: must equal the trust policy's sts:ExternalId condition
//   roleSessionName  ASSUME_ROLE, optional (default "ledger-network-manager")
//   stsEndpointUrl   ASSUME_ROLE, optional custom STS endpoint (emulators, VPC endpoints)
//   endpointUrl      optional custom KMS endpoint (local emulators, VPC endpoints)
// INSTANCE_ROLE is the SDK's default chain: environment, web identity (IRSA), container and
// instance metadata. Other fields:
//   kmsKeyAliasPrefix  aliases are alias/<prefix><name>; "alias/" in the prefix is optional;
//                      default "lnm/"
//   kmsKeyId           optional: an existing key (id, ARN or alias) that status() also checks
import { readProviderConfigBody } from './providerConfigBody.ts';
import { ValidationError } from '../../domain/shared/errors.ts';

export type AwsAuthMethod = 'STATIC' | 'PROFILE' | 'ASSUME_ROLE' | 'INSTANCE_ROLE';

export type AwsKmsAuth =
  | { method: 'STATIC'; accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  | { method: 'PROFILE'; profile: string }
  | {
      method: 'ASSUME_ROLE';
      roleArn: string;
      externalId?: string;
      roleSessionName: string;
      stsEndpointUrl?: string;
      base?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
    }
  | { method: 'INSTANCE_ROLE' };

export interface AwsKmsSettings {
  region: string;
  /** Always starts with "alias/". */
  aliasPrefix: string;
  kmsKeyId?: string;
  endpointUrl?: string;
  auth: AwsKmsAuth;
}

const regionPattern = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const aliasChars = /^[a-zA-Z0-9/_-]*$/;

export function parseAwsKmsProviderConfig(body: { awsKmsConfig?: unknown; config?: unknown }): AwsKmsSettings {
  const { field, raw, issues, str } = readProviderConfigBody(body, 'awsKmsConfig', 'An AWS KMS provider');
  const need = (name: string, why: string): string => {
    const v = str(name);
    if (!v) issues.push({ field: `${field}.${name}`, message: why });
    return v ?? '';
  };

  const operation = (str('operation') ?? 'IMPORT').toUpperCase();
  if (operation !== 'IMPORT') issues.push({ field: `${field}.operation`, message: 'must be IMPORT (the service connects to an existing AWS KMS)' });
  const region = str('awsRegion') ?? str('region');
  if (!region) issues.push({ field: `${field}.${field === 'config' ? 'region' : 'awsRegion'}`, message: 'required, e.g. eu-central-1' });
  else if (!regionPattern.test(region)) issues.push({ field: `${field}.${raw.awsRegion !== undefined ? 'awsRegion' : 'region'}`, message: 'not an AWS region name (e.g. eu-central-1)' });

  let prefix = str('kmsKeyAliasPrefix') ?? 'lnm/';
  if (prefix.startsWith('alias/')) prefix = prefix.slice(6);
  if (!aliasChars.test(prefix) || prefix.startsWith('aws/')) {
    issues.push({ field: `${field}.kmsKeyAliasPrefix`, message: 'letters, digits, "/", "_" and "-" only, and not under aws/' });
  }

  const url = (name: string): string | undefined => {
    const v = str(name);
    if (!v) return undefined;
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(v).protocol);
    } catch {
      ok = false;
    }
    if (!ok) issues.push({ field: `${field}.${name}`, message: 'must be an http(s) URL' });
    return v;
  };
  const endpointUrl = url('endpointUrl');

  const accessKeyId = str('accessKeyId');
  const methodRaw = str('authMethod')?.toUpperCase();
  const method: string = methodRaw ?? (accessKeyId ? 'STATIC' : str('roleArn') ? 'ASSUME_ROLE' : str('profile') ? 'PROFILE' : 'INSTANCE_ROLE');
  let auth: AwsKmsAuth = { method: 'INSTANCE_ROLE' };
  const staticPart = () => ({ accessKeyId: need('accessKeyId', `required for ${method}`), secretAccessKey: need('secretAccessKey', `required for ${method}`), sessionToken: str('sessionToken') });
  switch (method) {
    case 'STATIC':
      auth = { method: 'STATIC', ...staticPart() };
      break;
    case 'PROFILE':
      auth = { method: 'PROFILE', profile: need('profile', 'required for PROFILE: the name of a profile in ~/.aws/config') };
      break;
    case 'ASSUME_ROLE': {
      const roleArn = need('roleArn', 'required for ASSUME_ROLE, e.g. arn:aws:iam::123456789012:role/lnm-kms');
      if (roleArn && !/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/.test(roleArn)) issues.push({ field: `${field}.roleArn`, message: 'not an IAM role ARN' });
      auth = { method: 'ASSUME_ROLE', roleArn, externalId: str('externalId'), roleSessionName: str('roleSessionName') ?? 'ledger-network-manager', stsEndpointUrl: url('stsEndpointUrl'), base: accessKeyId ? staticPart() : undefined };
      break;
    }
    case 'INSTANCE_ROLE':
      break;
    default:
      issues.push({ field: `${field}.authMethod`, message: 'must be STATIC, PROFILE, ASSUME_ROLE or INSTANCE_ROLE' });
  }
  if (issues.length) throw new ValidationError('Invalid AWS KMS provider configuration.', issues);
  return { region: region!, aliasPrefix: `alias/${prefix}`, kmsKeyId: str('kmsKeyId'), endpointUrl, auth };
}
