// An AWS KMS stand-in: a real HTTP server (127.0.0.1, random port) speaking the KMS JSON 1.1
// protocol (POST /, X-Amz-Target: TrentService.<Operation>, application/x-amz-json-1.1).
// Every request must carry a valid AWS Signature Version 4 for one of the configured principals
// and be scoped to the stand-in's region and to "kms"; each principal may be limited to a set
// of kms:<Operation> actions (AccessDeniedException otherwise). Errors come back in the AWS JSON
// error shape ({"__type", "message"}, HTTP 400, 500 for internal) so @aws-sdk/client-kms raises
// the same exception classes it raises against AWS.
// The same server answers STS AssumeRole (form-encoded, SigV4 scoped to "sts") for the
// configured roles: see kmsStandinSts.ts.
// Usage: const kms = await startKmsStandin(); new KMSClient({ endpoint: kms.endpoint, region: kms.region,
//          credentials: kms.credentials }); await kms.close();
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { verifySigV4, type SigV4Principal } from './kmsSigV4.ts';
import { createKmsOperations, KmsError } from './kmsStandinOperations.ts';
import { handleSts, stsError, type KmsStandinRole } from './kmsStandinSts.ts';

export interface KmsPrincipal extends SigV4Principal {
  userName: string;
  /** e.g. ['kms:Sign']; omitted = every action allowed. */
  allowedActions?: string[];
}

export interface KmsStandin {
  endpoint: string;
  region: string;
  accountId: string;
  /** The first configured principal's credentials. */
  credentials: { accessKeyId: string; secretAccessKey: string };
  close(): Promise<void>;
}

export async function startKmsStandin(
  opts: { region?: string; accountId?: string; principals?: KmsPrincipal[]; roles?: KmsStandinRole[] } = {},
): Promise<KmsStandin> {
  const region = opts.region ?? 'eu-central-1';
  const accountId = opts.accountId ?? '111122223333';
  const principals: KmsPrincipal[] = opts.principals ? [...opts.principals] : [{ userName: 'lnm-tests', accessKeyId: 'AKIASTANDIN000000001', secretAccessKey: 'standin-secret-0000000000000000000000000' }];
  const { ops, resourceOf } = createKmsOperations(region, accountId);

  function reply(res: ServerResponse, status: number, payload: unknown) {
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/x-amz-json-1.1');
    res.setHeader('x-amzn-RequestId', randomUUID());
    res.end(JSON.stringify(payload));
  }
  const fail = (res: ServerResponse, type: string, message: string, status = 400) => reply(res, status, { __type: type, message });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/') return fail(res, 'UnknownOperationException', '', 404);

    if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      const sts = verifySigV4({ method: 'POST', url: req.url ?? '/', headers: req.headers, body }, { principals, region, service: 'sts' });
      const out = sts.ok ? handleSts(new URLSearchParams(body.toString('utf8')), sts.principal, opts.roles ?? [], principals, accountId) : stsError(sts.type === 'UnrecognizedClientException' ? 'InvalidClientTokenId' : 'SignatureDoesNotMatch', sts.message);
      res.statusCode = out.status;
      res.setHeader('Content-Type', 'text/xml');
      return res.end(out.xml);
    }
    const auth = verifySigV4({ method: 'POST', url: req.url ?? '/', headers: req.headers, body }, { principals, region, service: 'kms' });
    if (!auth.ok) {
      return fail(res, auth.type, auth.message, auth.type === 'MissingAuthenticationTokenException' ? 403 : 400);
    }
    const target = String(req.headers['x-amz-target'] ?? '');
    const op = target.startsWith('TrentService.') ? target.slice('TrentService.'.length) : '';
    if (!ops[op]) return fail(res, 'UnknownOperationException', '');
    const contentType = String(req.headers['content-type'] ?? '');
    if (!contentType.startsWith('application/x-amz-json-1.1')) return fail(res, 'SerializationException', 'Content-Type must be application/x-amz-json-1.1');
    let input: Record<string, unknown>;
    try {
      input = body.length ? JSON.parse(body.toString('utf8')) : {};
    } catch {
      return fail(res, 'SerializationException', 'Start of structure or map found where not expected.');
    }
    const principal = auth.principal;
    if (principal.allowedActions && !principal.allowedActions.includes(`kms:${op}`)) {
      return fail(
        res,
        'AccessDeniedException',
        `User: arn:aws:iam::${accountId}:user/${principal.userName} is not authorized to perform: kms:${op} on resource: ${resourceOf(op, input)} because no identity-based policy allows the kms:${op} action`,
      );
    }
    try {
      reply(res, 200, ops[op](input));
    } catch (err) {
      if (err instanceof KmsError) return fail(res, err.type, err.message);
      return fail(res, 'KMSInternalException', `stand-in failure: ${(err as Error).message}`, 500);
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => fail(res, 'KMSInternalException', String(err), 500));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    region,
    accountId,
    credentials: { accessKeyId: principals[0].accessKeyId, secretAccessKey: principals[0].secretAccessKey },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
