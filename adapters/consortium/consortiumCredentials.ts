// The consortium credentials port (domain/consortium/consortiumPorts.ts) over the key records
// in the event store and the organizations' key providers. Certificates come from the key
// streams (the truth, independent of projection lag); private keys come out of the database
// provider only for a node's directory, one TLS handshake or a plugin's files (nodeKeyPem), and
// signatures are made inside the provider that holds the key.
import type { EventStore } from '../../domain/shared/eventStore.ts';
import { loadState } from '../../domain/shared/commandHandler.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { organizationStream, organizations } from '../../domain/organizations/organizations.ts';
import { keyStream, keys, type KeyState } from '../../domain/keys/keys.ts';
import type { KeyRef, KeyServices } from '../../domain/keys/keyServices.ts';
import { IdentityNotExportableError, type ConsortiumCredentials, type OrganizationMsp, type TlsClientIdentity } from '../../domain/consortium/consortiumPorts.ts';
import { keyProviderFabricSigner } from './fabricSigning.ts';

export interface ConsortiumCredentialsOptions {
  store: EventStore;
  keys: KeyServices;
  /** PKCS#8 PEM of a key held by the database provider (databasePrivateKeyPem). */
  nodeKeyPem(handle: string): Promise<string>;
  clock?: () => Date;
}

const TLS_CLIENT_HOURS = 24;

async function activeKey(store: EventStore, keyId: number, what: string): Promise<Required<Pick<KeyState, 'keyId' | 'providerId' | 'spec' | 'material'>> & { certificatePem: string }> {
  const { state } = await loadState(store, keyStream(keyId), keys);
  if (state.status !== 'active' || !state.material || !state.spec || state.providerId === undefined) throw new NotFoundError('Key', keyId);
  if (!state.certificate) throw new ValidationError(`The ${what} key ${keyId} has no certificate.`, [{ field: 'keyId', message: 'no certificate' }]);
  return { keyId, providerId: state.providerId, spec: state.spec, material: state.material, certificatePem: state.certificate.certificatePem };
}

const refOf = (k: Awaited<ReturnType<typeof activeKey>>): KeyRef => ({ providerId: k.providerId, handle: k.material.handle, spec: k.spec, publicKeyPem: k.material.publicKeyPem });

/**
 * What every chaincode query, channel read and join needs of an organization (its MSP
 * certificates and its admin signer) comes from four or five streams; read once and kept until an
 * event of an organization or key stream is appended (a rotation, a revocation, a new
 * certificate), which empties the cache. A subscription from the store's head tells of those
 * events, so nothing is read again per request; a read that overlaps an invalidation is not kept.
 */
export function invalidatedCache(store: EventStore) {
  const entries = new Map<string, Promise<unknown>>();
  let generation = 0;
  let watching: Promise<unknown> | null = null;
  let live = false;
  const forget = () => {
    generation++;
    entries.clear();
  };
  const watch = () =>
    (watching ??= store
      .headPosition()
      .then((head) => {
        const sub = store.subscribe(head, async (batch) => {
          if (batch.some((e) => e.streamId.startsWith('organization-') || e.streamId.startsWith('key-'))) forget();
        }, () => {
          // Without the subscription nothing may be kept: start again at the next read.
          live = false;
          watching = null;
          forget();
        });
        live = true;
        return sub;
      })
      .catch(() => {
        watching = null;
      }));
  return async function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    await watch();
    if (!live) return load();
    const hit = entries.get(key) as Promise<T> | undefined;
    if (hit) return hit;
    const at = generation;
    const loading = load();
    entries.set(key, loading);
    loading.then(
      () => {
        if (generation !== at && entries.get(key) === loading) entries.delete(key);
      },
      () => {
        if (entries.get(key) === loading) entries.delete(key);
      },
    );
    return loading;
  };
}

export function createConsortiumCredentials(opts: ConsortiumCredentialsOptions): ConsortiumCredentials {
  const { store } = opts;
  const clock = opts.clock ?? (() => new Date());
  const tlsClients = new Map<number, { identity: TlsClientIdentity; until: number }>();
  const cached = invalidatedCache(store);

  async function organization(organizationId: number) {
    const { state } = await loadState(store, organizationStream(organizationId), organizations);
    if (state.status !== 'active' || !state.fields) throw new NotFoundError('Organization', organizationId);
    const events = await store.readStream(organizationStream(organizationId));
    const created = events.find((e) => e.type === 'OrganizationCreated');
    const ids = created!.data as { signKeyId: number; tlsKeyId: number; adminKeyId: number };
    return { fields: state.fields, signKeyId: ids.signKeyId, tlsKeyId: ids.tlsKeyId, adminKeyId: ids.adminKeyId };
  }

  function organizationMsp(organizationId: number): Promise<OrganizationMsp> {
    return cached(`msp-${organizationId}`, () => readOrganizationMsp(organizationId));
  }

  async function readAdminSigner(organizationId: number) {
    const org = await organization(organizationId);
    const admin = await activeKey(store, org.adminKeyId, 'admin');
    const provider = await opts.keys.providers.get(admin.providerId);
    return keyProviderFabricSigner(provider, admin.material.handle, admin.spec, org.fields.mspId, admin.certificatePem);
  }

  async function readOrganizationMsp(organizationId: number): Promise<OrganizationMsp> {
    const org = await organization(organizationId);
    const [sign, tls, admin] = await Promise.all([activeKey(store, org.signKeyId, 'signing CA'), activeKey(store, org.tlsKeyId, 'TLS CA'), activeKey(store, org.adminKeyId, 'admin')]);
    return { mspId: org.fields.mspId, signCaCertPem: sign.certificatePem, tlsCaCertPem: tls.certificatePem, adminCertPem: admin.certificatePem };
  }

  return {
    organizationMsp,
    async nodeMaterial(node) {
      const [organization, identity, tls] = await Promise.all([organizationMsp(node.organizationId), activeKey(store, node.identityKeyId, 'identity'), activeKey(store, node.tlsKeyId, 'TLS')]);
      return {
        organization,
        identityCertPem: identity.certificatePem,
        identityKeyPem: await opts.nodeKeyPem(identity.material.handle),
        tlsCertPem: tls.certificatePem,
        tlsKeyPem: await opts.nodeKeyPem(tls.material.handle),
      };
    },
    async chaincodeServerTls(node) {
      if (!node.config.tls || node.tlsKeyId == null || node.clientTlsKeyId == null) return null;
      const [organization, server, client] = await Promise.all([organizationMsp(node.organizationId), activeKey(store, node.tlsKeyId, 'chaincode server TLS'), activeKey(store, node.clientTlsKeyId, 'chaincode client TLS')]);
      return {
        caCertPem: organization.tlsCaCertPem,
        serverCertPem: server.certificatePem,
        serverKeyPem: await opts.nodeKeyPem(server.material.handle),
        clientCertPem: client.certificatePem,
        clientKeyPem: await opts.nodeKeyPem(client.material.handle),
      };
    },
    adminSigner(organizationId) {
      return cached(`admin-${organizationId}`, () => readAdminSigner(organizationId));
    },
    async exportIdentity(keyId) {
      const { state } = await loadState(store, keyStream(keyId), keys);
      if (state.status !== 'active' || !state.material) throw new NotFoundError('Key', keyId);
      if ((state.purpose !== 'ADMIN' && state.purpose !== 'IDENTITY' && state.purpose !== 'CLIENT') || state.organizationId == null) {
        throw new ValidationError(`Key ${keyId} (${state.purpose}) is not a client identity of an organization: give an organization's ADMIN or CLIENT key or a node's IDENTITY key.`, [{ field: 'keyId', message: `a ${state.purpose} key; an ADMIN, CLIENT or IDENTITY key of an organization is needed` }]);
      }
      const key = await activeKey(store, keyId, 'identity');
      const provider = await opts.keys.providers.get(key.providerId);
      if (provider.type !== 'DATABASE') throw new IdentityNotExportableError(keyId, provider.type);
      const org = await organization(state.organizationId);
      return { keyId, mspId: org.fields.mspId, certificatePem: key.certificatePem, privateKeyPem: await opts.nodeKeyPem(key.material.handle) };
    },
    async adminTlsClient(organizationId) {
      const cached = tlsClients.get(organizationId);
      const now = clock();
      if (cached && cached.until > now.getTime()) return cached.identity;
      const org = await organization(organizationId);
      const [tlsCa, admin] = await Promise.all([activeKey(store, org.tlsKeyId, 'TLS CA'), activeKey(store, org.adminKeyId, 'admin')]);
      // Short-lived and never recorded: it only opens the orderer's admin endpoint for this service.
      const notAfter = new Date(now.getTime() + TLS_CLIENT_HOURS * 3600_000);
      const cert = await opts.keys.issueCertificate(admin.material.publicKeyPem, {
        commonName: `Admin@${org.fields.mspId}`, organization: org.fields.mspId, isCa: false, keyUsages: ['digitalSignature', 'keyEncipherment'], extendedKeyUsages: ['clientAuth'],
        notBefore: new Date(now.getTime() - 5 * 60_000), notAfter,
      }, { key: refOf(tlsCa), certificatePem: tlsCa.certificatePem });
      const identity = { certificatePem: cert.pem, privateKeyPem: await opts.nodeKeyPem(admin.material.handle) };
      tlsClients.set(organizationId, { identity, until: notAfter.getTime() - 3600_000 });
      return identity;
    },
  };
}
