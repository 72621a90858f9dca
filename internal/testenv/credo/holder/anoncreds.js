'use strict'
// AnonCreds for the Credo holder (holder.js --anoncreds): @credo-ts/anoncreds
// with anoncreds-rs (@hyperledger/anoncreds-nodejs, libanoncreds from
// LIB_ANONCREDS_PATH), an in-memory AnonCreds registry of its own, and an
// issuer in the same wallet, so that the holder can be given a real
// AnonCreds (CL) credential without a ledger:
//
//   POST /anoncreds/credentials {attributes: {name: value, …}, schemaName?, tag?}
//     registers a schema with those attribute names and a credential
//     definition (no revocation) in the registry, issues a credential with
//     those values to the holder's link secret and stores it; answers
//     {credentialId, issuerId, schemaId, credentialDefinitionId, schema,
//     credentialDefinition, qualifiedSchemaId, qualifiedCredentialDefinitionId,
//     values}: the schema and credential definition as
//     the registry holds them (AnonCreds JSON), for a verifier's registry.
//
// The issuer registers with did:indy identifiers (Credo's issuer service
// derives the legacy ones from those); everything the holder and a
// verifier see uses the legacy unqualified Indy identifiers (schema
// <did>:2:<name>:<version>, credential definition <did>:3:CL:<schema
// seqNo>:<tag>, <did> a 21–22 character base58 string), the only ones Credo
// 0.5's hlindy (legacy indy) proof format accepts. Issuance calls the
// issuer and holder services directly (offer, request, credential, store:
// what issue-credential's legacy indy format does on each side) instead of
// a DIDComm exchange between two agents; the proof that follows is the
// real exchange, answered by present-proof 2.0's
// LegacyIndyProofFormatService (hlindy/proof-req@v2.0 → hlindy/proof@v2.0)
// or AnonCredsProofFormatService (anoncreds/proof-request@v1.0).

const crypto = require('crypto')

function load() {
  let ac, acNode
  try {
    ac = require('@credo-ts/anoncreds')
    acNode = require('@hyperledger/anoncreds-nodejs')
  } catch (e) {
    throw new Error(`loading @credo-ts/anoncreds failed (an install from before AnonCreds? run scripts/credo-holder.sh): ${e.message}`)
  }
  // Not exported from the package's index.
  const { convertAttributesToCredentialValues } = require('@credo-ts/anoncreds/build/utils/credential')
  const { getStoreCredentialOptions } = require('@credo-ts/anoncreds/build/utils/w3cAnonCredsUtils')

  let anoncredsVersion
  try {
    anoncredsVersion = acNode.anoncreds.version()
  } catch (e) {
    throw new Error(`loading libanoncreds failed (LIB_ANONCREDS_PATH=${process.env.LIB_ANONCREDS_PATH || ''}): ${e.message}`)
  }

  const registry = new InMemoryRegistry()
  const module = new ac.AnonCredsModule({ registries: [registry], anoncreds: acNode.anoncreds })
  const proofFormats = [new ac.LegacyIndyProofFormatService(), new ac.AnonCredsProofFormatService()]

  let issuerId
  let issued = 0
  async function issue(agent, body) {
    const attributes = body.attributes
    if (!attributes || typeof attributes !== 'object' || Array.isArray(attributes) || !Object.keys(attributes).length) {
      throw httpError(400, 'attributes must be a non-empty object of attribute names to values')
    }
    issued++
    issuerId = issuerId ?? `did:indy:${NAMESPACE}:${unqualifiedDid()}`
    const api = agent.modules.anoncreds
    const ctx = agent.context

    const s = await api.registerSchema({
      schema: { issuerId, name: body.schemaName ?? 'proofgate-credo', version: `1.${issued}`, attrNames: Object.keys(attributes) },
      options: {},
    })
    if (s.schemaState.state !== 'finished') throw new Error(`registering the schema: ${JSON.stringify(s.schemaState)}`)
    const d = await api.registerCredentialDefinition({
      credentialDefinition: { issuerId, schemaId: s.schemaState.schemaId, tag: body.tag ?? 'default' },
      options: { supportRevocation: false },
    })
    if (d.credentialDefinitionState.state !== 'finished') {
      throw new Error(`registering the credential definition: ${JSON.stringify(d.credentialDefinitionState)}`)
    }
    // From here on the legacy identifiers, as issue-credential's legacy
    // indy format uses them (its offer must name an unqualified cred def).
    const { legacyCredentialDefinitionId: credentialDefinitionId, legacySchemaId: schemaId } = d.credentialDefinitionMetadata
    const credentialDefinition = registry.credentialDefinitions.get(credentialDefinitionId)
    const { schema } = registry.schemas.get(schemaId)

    const issuer = agent.dependencyManager.resolve(ac.AnonCredsIssuerServiceSymbol)
    const holder = agent.dependencyManager.resolve(ac.AnonCredsHolderServiceSymbol)
    const credentialOffer = await issuer.createCredentialOffer(ctx, { credentialDefinitionId })
    const { credentialRequest, credentialRequestMetadata } = await holder.createCredentialRequest(ctx, {
      credentialOffer,
      credentialDefinition,
      useLegacyProverDid: true,
    })
    const { credential } = await issuer.createCredential(ctx, {
      credentialOffer,
      credentialRequest,
      credentialValues: convertAttributesToCredentialValues(
        Object.entries(attributes).map(([name, value]) => ({ name, value: String(value) }))
      ),
    })
    // As LegacyIndyCredentialFormatService.processCredential stores it.
    const credentialId = await holder.storeCredential(
      ctx,
      getStoreCredentialOptions(
        { credential, credentialRequestMetadata, credentialDefinition, schema, credentialDefinitionId },
        NAMESPACE
      )
    )
    return {
      credentialId,
      issuerId: unqualified(issuerId),
      schemaId,
      credentialDefinitionId,
      schema,
      credentialDefinition,
      qualifiedSchemaId: s.schemaState.schemaId,
      qualifiedCredentialDefinitionId: d.credentialDefinitionState.credentialDefinitionId,
      values: credential.values,
    }
  }

  return { module, proofFormats, issue, anoncredsVersion }
}

// unqualifiedDid is a legacy Indy DID: 16 random bytes in base58 (what
// Indy derives from a verkey), 21 or 22 characters.
function unqualifiedDid() {
  for (;;) {
    const did = base58(crypto.randomBytes(16))
    if (/^[1-9A-HJ-NP-Za-km-z]{21,22}$/.test(did)) return did
  }
}

function base58(buf) {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
  let n = BigInt('0x' + buf.toString('hex'))
  let out = ''
  while (n > 0n) {
    out = alphabet[Number(n % 58n)] + out
    n /= 58n
  }
  for (const b of buf) {
    if (b !== 0) break
    out = '1' + out
  }
  return out
}

// InMemoryRegistry is an AnonCreds registry in this process's memory, shaped
// like Credo's indy-vdr one (and its own test registry): the issuer
// registers with did:indy identifiers (did:indy:proofgate:<did>/anoncreds/v0/…),
// which is what Credo's issuer service needs to derive legacy ones, and
// every object resolves by its did:indy id and by its legacy unqualified id
// (<did>:2:<name>:<version>, <did>:3:CL:<schema seqNo>:<tag>), the latter
// with unqualified issuerId and schemaId inside, as a ledger's legacy
// answer; schemas get a sequence number as on a ledger.
const NAMESPACE = 'proofgate'

class InMemoryRegistry {
  constructor() {
    this.methodName = 'proofgate-memory'
    this.supportedIdentifier = new RegExp(
      `^(did:indy:${NAMESPACE}:[1-9A-HJ-NP-Za-km-z]{21,22}(/anoncreds/v0/.+)?|[1-9A-HJ-NP-Za-km-z]{21,22}(:2:.+|:3:CL:.+)?)$`
    )
    this.schemas = new Map() // id (both forms) -> {schema, seqNo}
    this.credentialDefinitions = new Map() // id (both forms) -> credential definition
    this.nextSeqNo = 1000
  }

  async getSchema(_ctx, schemaId) {
    const s = this.schemas.get(schemaId)
    if (!s) return { schemaId, resolutionMetadata: { error: 'notFound', message: `no schema ${schemaId}` }, schemaMetadata: {} }
    return {
      schemaId,
      schema: s.schema,
      resolutionMetadata: {},
      schemaMetadata: { indyLedgerSeqNo: s.seqNo, didIndyNamespace: NAMESPACE },
    }
  }

  async registerSchema(_ctx, { schema }) {
    const failed = (reason) => ({ schemaState: { state: 'failed', reason, schema }, schemaMetadata: {}, registrationMetadata: {} })
    const did = unqualified(schema.issuerId)
    if (!did) return failed(`issuerId ${schema.issuerId} is not did:indy:${NAMESPACE}:<did>`)
    const schemaId = `${schema.issuerId}/anoncreds/v0/SCHEMA/${schema.name}/${schema.version}`
    const legacyId = `${did}:2:${schema.name}:${schema.version}`
    if (this.schemas.has(schemaId)) return failed(`schema ${schemaId} exists`)
    const seqNo = this.nextSeqNo++
    this.schemas.set(schemaId, { schema, seqNo, legacyId })
    this.schemas.set(legacyId, { schema: { ...schema, issuerId: did }, seqNo, legacyId })
    return {
      schemaState: { state: 'finished', schema, schemaId },
      schemaMetadata: { indyLedgerSeqNo: seqNo, didIndyNamespace: NAMESPACE },
      registrationMetadata: {},
    }
  }

  async getCredentialDefinition(_ctx, credentialDefinitionId) {
    const credentialDefinition = this.credentialDefinitions.get(credentialDefinitionId)
    if (!credentialDefinition) {
      return {
        credentialDefinitionId,
        resolutionMetadata: { error: 'notFound', message: `no credential definition ${credentialDefinitionId}` },
        credentialDefinitionMetadata: {},
      }
    }
    return {
      credentialDefinitionId,
      credentialDefinition,
      resolutionMetadata: {},
      credentialDefinitionMetadata: { didIndyNamespace: NAMESPACE },
    }
  }

  async registerCredentialDefinition(_ctx, { credentialDefinition }) {
    const failed = (reason) => ({
      credentialDefinitionState: { state: 'failed', reason, credentialDefinition },
      credentialDefinitionMetadata: {},
      registrationMetadata: {},
    })
    const did = unqualified(credentialDefinition.issuerId)
    if (!did) return failed(`issuerId ${credentialDefinition.issuerId} is not did:indy:${NAMESPACE}:<did>`)
    const schema = this.schemas.get(credentialDefinition.schemaId)
    if (!schema) return failed(`no schema ${credentialDefinition.schemaId}`)
    const { tag } = credentialDefinition
    const id = `${credentialDefinition.issuerId}/anoncreds/v0/CLAIM_DEF/${schema.seqNo}/${tag}`
    const legacyId = `${did}:3:CL:${schema.seqNo}:${tag}`
    if (this.credentialDefinitions.has(id)) return failed(`credential definition ${id} exists`)
    this.credentialDefinitions.set(id, credentialDefinition)
    this.credentialDefinitions.set(legacyId, { ...credentialDefinition, issuerId: did, schemaId: schema.legacyId })
    return {
      credentialDefinitionState: { state: 'finished', credentialDefinition, credentialDefinitionId: id },
      credentialDefinitionMetadata: { legacyCredentialDefinitionId: legacyId, legacySchemaId: schema.legacyId },
      registrationMetadata: {},
    }
  }

  async getRevocationRegistryDefinition(_ctx, id) {
    return {
      revocationRegistryDefinitionId: id,
      resolutionMetadata: { error: 'notFound', message: 'no revocation in this registry' },
      revocationRegistryDefinitionMetadata: {},
    }
  }

  async registerRevocationRegistryDefinition() {
    throw new Error('no revocation in this registry')
  }

  async getRevocationStatusList(_ctx, id) {
    return { resolutionMetadata: { error: 'notFound', message: `no revocation in this registry (${id})` }, revocationStatusListMetadata: {} }
  }

  async registerRevocationStatusList() {
    throw new Error('no revocation in this registry')
  }
}

// unqualified returns <did> of did:indy:proofgate:<did>, or undefined.
function unqualified(issuerId) {
  const m = new RegExp(`^did:indy:${NAMESPACE}:([1-9A-HJ-NP-Za-km-z]{21,22})$`).exec(issuerId)
  return m ? m[1] : undefined
}

function httpError(status, message) {
  const e = new Error(message)
  e.status = status
  return e
}

module.exports = { load }
