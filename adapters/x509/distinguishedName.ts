// Subject and issuer names. Attribute order follows the usual CA tooling (C, ST, L, O, OU..., CN),
// one attribute per RDN; country is a PrintableString as RFC 5280 requires, the rest UTF8String.
//   buildName(subject)  -> @peculiar Name
import { AttributeTypeAndValue, AttributeValue, Name, RelativeDistinguishedName } from '@peculiar/asn1-x509';
import { ValidationError } from '../../domain/shared/errors.ts';

export interface SubjectName {
  commonName: string;
  organization?: string;
  organizationalUnits?: string[];
  /** Two-letter ISO 3166 code. */
  country?: string;
  province?: string;
  locality?: string;
}

const oid = {
  country: '2.5.4.6',
  province: '2.5.4.8',
  locality: '2.5.4.7',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
  commonName: '2.5.4.3',
};

function rdn(type: string, value: AttributeValue): RelativeDistinguishedName {
  return new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value })]);
}

function text(field: string, value: string): AttributeValue {
  // RFC 5280 upper bounds: 64 characters for CN, O, OU; 128 for L and ST.
  const max = field === 'locality' || field === 'province' ? 128 : 64;
  if (value.length === 0 || value.length > max) {
    throw new ValidationError(`Certificate subject ${field} must be 1 to ${max} characters.`, [
      { field, message: `must be 1 to ${max} characters` },
    ]);
  }
  return new AttributeValue({ utf8String: value });
}

export function buildName(subject: SubjectName): Name {
  const rdns: RelativeDistinguishedName[] = [];
  if (subject.country !== undefined) {
    if (!/^[A-Z]{2}$/.test(subject.country)) {
      throw new ValidationError('Certificate subject country must be a two-letter code such as US.', [
        { field: 'country', message: 'must be two upper-case letters' },
      ]);
    }
    rdns.push(rdn(oid.country, new AttributeValue({ printableString: subject.country })));
  }
  if (subject.province !== undefined) rdns.push(rdn(oid.province, text('province', subject.province)));
  if (subject.locality !== undefined) rdns.push(rdn(oid.locality, text('locality', subject.locality)));
  if (subject.organization !== undefined) rdns.push(rdn(oid.organization, text('organization', subject.organization)));
  for (const ou of subject.organizationalUnits ?? []) rdns.push(rdn(oid.organizationalUnit, text('organizationalUnits', ou)));
  rdns.push(rdn(oid.commonName, text('commonName', subject.commonName)));
  return new Name(rdns);
}
