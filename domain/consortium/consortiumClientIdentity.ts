// Client identities of an organization: X.509 certificates its signing CA issues to
// applications, as Fabric CA would enroll them. The role is the certificate's NodeOU (OU client
// or admin: the organizations' MSPs have NodeOUs on, adapters/consortium/fabricMsp.ts), and the
// attributes go into Fabric's attribute extension (OID 1.2.3.4.5.6.7.8.1, {"attrs":{...}}) with
// the three Fabric CA adds itself (hf.EnrollmentID, hf.Type, hf.Affiliation), so chaincode that
// reads them (cid.GetAttributeValue, ctx.clientIdentity.getAttributeValue) works the same.
// The key pair is made in the organization's key provider; the private key leaves it only
// through the explicit, audited export.
import type { CertificateProfileData } from '../keys/keys.ts';
import { ValidationError } from '../shared/errors.ts';

export type ClientIdentityRole = 'client' | 'admin';
export const CLIENT_IDENTITY_ROLES: readonly ClientIdentityRole[] = ['client', 'admin'];
export const CLIENT_IDENTITY_VALIDITY_DAYS = 365;
/** A common name (X.509 caps it at 64) made of what Fabric CA accepts in an enrollment id, without '@' and spaces. */
export const CLIENT_IDENTITY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const ATTRIBUTE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const MAX_ATTRIBUTES = 32;

export interface ClientIdentityRequest {
  name: string;
  role: ClientIdentityRole;
  attributes?: { name: string; value: string }[];
  validityDays?: number;
}

/** The attributes as written in the certificate (the caller's, then Fabric CA's own three); 400 naming each bad one. */
export function clientIdentityAttributes(req: ClientIdentityRequest): Record<string, string> {
  const given = req.attributes ?? [];
  const problems: { field: string; message: string }[] = [];
  if (given.length > MAX_ATTRIBUTES) problems.push({ field: 'attributes', message: `at most ${MAX_ATTRIBUTES}` });
  const attrs: Record<string, string> = {};
  given.forEach((a, i) => {
    if (!ATTRIBUTE_NAME.test(a.name)) problems.push({ field: `attributes/${i}/name`, message: 'letters, digits, ".", "_", "-", at most 128' });
    else if (a.name.startsWith('hf.')) problems.push({ field: `attributes/${i}/name`, message: 'hf.* attributes are Fabric CA\'s own (hf.EnrollmentID, hf.Type, hf.Affiliation are set from the identity)' });
    else if (Object.hasOwn(attrs, a.name)) problems.push({ field: `attributes/${i}/name`, message: `${a.name} is given twice` });
    else attrs[a.name] = a.value;
  });
  if (problems.length) throw new ValidationError(`Invalid client identity attributes: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}.`, problems);
  return { ...attrs, 'hf.EnrollmentID': req.name, 'hf.Type': req.role, 'hf.Affiliation': '' };
}

export function clientIdentityProfile(domain: string, req: ClientIdentityRequest): CertificateProfileData {
  if (!CLIENT_IDENTITY_NAME.test(req.name)) throw new ValidationError(`Client identity name ${JSON.stringify(req.name)}: letters, digits, ".", "_", "-", at most 64, starting with a letter or digit.`, [{ field: 'name', message: 'letters, digits, ".", "_", "-", at most 64' }]);
  if (!CLIENT_IDENTITY_ROLES.includes(req.role)) throw new ValidationError(`Role ${JSON.stringify(req.role)}: client or admin.`, [{ field: 'role', message: 'client or admin' }]);
  return {
    commonName: req.name,
    organization: domain,
    organizationalUnits: [req.role],
    keyUsages: ['digitalSignature'],
    attributes: clientIdentityAttributes(req),
    isCa: false,
    validityDays: req.validityDays ?? CLIENT_IDENTITY_VALIDITY_DAYS,
  };
}
