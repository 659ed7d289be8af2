// What AWS KMS (or the network, or the credential chain) answers, as the application's errors.
// Messages name the region, endpoint, operation and key reference; never a secret. The SDK
// error is not attached as `cause`.
import { AppError, ConflictError, UnavailableError, ValidationError } from '../../domain/shared/errors.ts';

export interface KmsErrorContext {
  region: string;
  endpointUrl?: string;
  /** The KMS operation, e.g. Sign. */
  operation: string;
  /** Key id, ARN or alias the call was about. */
  keyRef?: string;
}

export type KmsFailureKind = 'unreachable' | 'wrong_region' | 'clock_skew' | 'invalid_credentials' | 'no_credentials' | 'access_denied' | 'key_not_found' | 'invalid_request' | 'conflict' | 'service_error';

const networkCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE']);
const badCredentials = new Set(['UnrecognizedClientException', 'InvalidSignatureException', 'IncompleteSignatureException', 'MissingAuthenticationTokenException', 'ExpiredTokenException', 'InvalidClientTokenId', 'SignatureDoesNotMatch']);

export function classifyKmsError(err: unknown): KmsFailureKind {
  const e = err as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const name = e?.name ?? '';
  const message = e?.message ?? '';
  if (networkCodes.has(e?.code ?? '') || name === 'TimeoutError' || /getaddrinfo|ECONNREFUSED|socket hang up/.test(message)) return 'unreachable';
  if (name === 'CredentialsProviderError' || /Could not load credentials/i.test(message)) return 'no_credentials';
  if (name === 'InvalidSignatureException' && /scoped to a valid region/i.test(message)) return 'wrong_region';
  if (name === 'InvalidSignatureException' && /Signature expired|not yet current/i.test(message)) return 'clock_skew';
  if (badCredentials.has(name)) return 'invalid_credentials';
  if (name === 'AccessDeniedException' || name === 'NotAuthorizedException' || name === 'AccessDenied') return 'access_denied';
  if (name === 'NotFoundException' || name === 'KMSInvalidStateException' || name === 'DisabledException') return 'key_not_found';
  if (name === 'AlreadyExistsException') return 'conflict';
  if (name === 'ValidationException' || name === 'InvalidKeyUsageException' || name === 'UnsupportedOperationException' || name === 'InvalidArnException') return 'invalid_request';
  return 'service_error';
}

export function kmsEndpointName(ctx: Pick<KmsErrorContext, 'region' | 'endpointUrl'>): string {
  return ctx.endpointUrl ?? `kms.${ctx.region}.amazonaws.com`;
}

export function mapKmsError(err: unknown, ctx: KmsErrorContext): AppError {
  if (err instanceof AppError) return err;
  const e = err as { name?: string; code?: string; message?: string };
  const awsMessage = String(e?.message ?? '').slice(0, 400);
  const where = kmsEndpointName(ctx);
  const key = ctx.keyRef ? ` ${ctx.keyRef}` : '';
  switch (classifyKmsError(err)) {
    case 'unreachable':
      return new UnavailableError(`AWS KMS is not reachable at ${where} (${e?.code ?? e?.name ?? 'no response'}): check the region, the endpoint and the network.`, { kms_reachable: false });
    case 'wrong_region':
      return new UnavailableError(`AWS KMS at ${where} does not serve region ${ctx.region}: check the provider's region.`, { kms_reachable: false, region: ctx.region });
    case 'clock_skew':
      return new UnavailableError(`AWS KMS rejected the request time: this server's clock differs from AWS by more than 5 minutes.`);
    case 'no_credentials':
      return new UnavailableError(`No AWS credentials could be loaded for the KMS provider: ${awsMessage}`, { has_credentials: false });
    case 'invalid_credentials':
      return new AppError(403, 'KEY_PROVIDER_ACCESS_DENIED', `AWS KMS rejected the credentials for ${ctx.operation}: the access key id is unknown, the secret access key is wrong, or the session token expired.`);
    case 'access_denied':
      // STS answers "AccessDenied" (KMS says AccessDeniedException): the role assumption failed.
      if (e?.name === 'AccessDenied' && /sts:AssumeRole/.test(awsMessage)) {
        return new AppError(403, 'KEY_PROVIDER_ACCESS_DENIED', `AWS STS refused to let the provider assume its role: check the role's trust policy and the externalId. AWS said: ${awsMessage}`);
      }
      return new AppError(403, 'KEY_PROVIDER_ACCESS_DENIED', `AWS KMS access denied for kms:${ctx.operation}${key}: the provider's IAM identity needs kms:${ctx.operation}. AWS said: ${awsMessage}`);
    case 'key_not_found': {
      const state = e?.name === 'KMSInvalidStateException' ? ` (AWS: ${awsMessage})` : '';
      return new AppError(
        404,
        'KEY_NOT_FOUND',
        `AWS KMS key${key} not found or not usable in region ${ctx.region}${state}: check the alias prefix, the region, or whether the key is pending deletion.`,
        { extra: { region: ctx.region, ...(ctx.keyRef ? { key: ctx.keyRef } : {}) } },
      );
    }
    case 'conflict':
      return new ConflictError(`AWS KMS: ${awsMessage}`);
    case 'invalid_request':
      return new ValidationError(`AWS KMS rejected ${ctx.operation}${key}: ${awsMessage}`);
    default:
      return new UnavailableError(`AWS KMS at ${where} failed on ${ctx.operation}: ${e?.name ?? 'error'} ${awsMessage}`.trim());
  }
}
