'use strict'
// formdata.js: what a real Credo VERIFIER keeps of a DIF presentation-exchange
// exchange, for the credo backend's re-check (internal/upstream/credo,
// recheck.go reads it from credo-controller's GET /didcomm/proofs/{id}/form-data,
// which answers agent.proofs.getFormatData). In one node process it runs a
// verifier agent and a holder agent (@credo-ts 0.5.19, in-memory Askar
// wallets, DIDComm over HTTP on loopback ports), and for each case:
//
//   - the verifier creates a present-proof 2.0 request with the
//     presentationExchange format (one input descriptor, one field with a
//     filter) and puts it in a connectionless out-of-band invitation (no
//     handshake), as proofgate's out-of-band requests are;
//   - the holder receives it and answers with a VP it signs;
//   - once the verifier's record is presentation-received, prints one JSON
//     line: {"case", "state", "isVerified", "formatData"} where formatData is
//     the verifier's agent.proofs.getFormatData(recordId).
//
// Cases: "meets", the holder lets Credo pick the credential that meets the
// filter; "fails", the holder presents a credential whose field fails the
// filter. Credo's holder refuses to build that submission (handed the
// credential by record, PEX's verifiablePresentationFrom throws "Could not
// get evaluation results from presentationResult"), so this holder is a
// modified wallet: its format service (LaxHolderFormat) builds the VP
// against the request's definition with the field filters removed. The VP
// is otherwise Credo's own: same definition id, descriptor and challenge,
// signed by the holder, so the verifier gets a correctly signed VP that does
// not answer the definition.
//
// Credentials are signed by the holder itself as holder.js does: did:key
// issuer, Ed25519Signature2018, subject the holder's own did:key, contexts
// credentials/v1 and an inline @vocab (nothing is fetched). Credo's log goes
// to stderr. Run with NODE_PATH at the holder install and
// LIB_ARIES_ASKAR_PATH at its lib/, as internal/testenv/credo.RunScript does.

const crypto = require('crypto')
const core = require('@credo-ts/core')
const { agentDependencies, HttpInboundTransport } = require('@credo-ts/node')
const askar = require('@credo-ts/askar')
const { ariesAskarNodeJS } = require('@hyperledger/aries-askar-nodejs')
const express = require('express')

// stdout carries the result lines only.
for (const k of ['log', 'info', 'debug', 'trace']) console[k] = (...a) => console.error(...a)

const descriptorId = 'birth_date'
// Born on or before 2006-01-01: the field's filter.
const definition = {
  id: 'c6f1e8a2-5f2e-4b7e-9a51-0d7c2b3f4e10',
  input_descriptors: [{
    id: descriptorId,
    name: 'Date of birth',
    constraints: {
      fields: [{ path: ['$.credentialSubject.birthDate'], filter: { type: 'string', format: 'date', formatMaximum: '2006-01-01' } }],
    },
  }],
}

// jwtDefinition is definition for a JWT credential, whose claims a path
// reaches through the JWT's vc claim (DIF PE: paths run on the decoded
// payload); both paths, as definitions written for either format give them.
const jwtDefinition = JSON.parse(JSON.stringify(definition))
jwtDefinition.input_descriptors[0].constraints.fields[0].path.push('$.vc.credentialSubject.birthDate')

// LaxHolderFormat is the holder's presentation-exchange format service:
// Credo's own, but while ignoreFilters is set it answers a request as if its
// definition had no field filters (what a modified wallet could send).
class LaxHolderFormat extends core.DifPresentationExchangeProofFormatService {
  async acceptRequest(agentContext, options) {
    if (!this.ignoreFilters) return super.acceptRequest(agentContext, options)
    const request = options.requestAttachment.getDataAsJson()
    const lax = JSON.parse(JSON.stringify(request))
    for (const d of lax.presentation_definition.input_descriptors) {
      for (const f of d.constraints?.fields ?? []) delete f.filter
    }
    const requestAttachment = new core.Attachment({ id: options.requestAttachment.id, data: new core.AttachmentData({ json: lax }) })
    return super.acceptRequest(agentContext, { ...options, requestAttachment })
  }
}

// newAgent makes an agent whose DIDComm inbound transport listens on a
// loopback port of its own (holder.js's approach: HttpInboundTransport calls
// app.listen(port), bound here to 127.0.0.1; port 0 picks a free one).
async function newAgent(label, pexFormat) {
  const app = express()
  const listen = app.listen.bind(app)
  app.listen = (port, ...rest) => listen(port, '127.0.0.1', ...rest)
  const inbound = new HttpInboundTransport({ app, port: 0 })
  const agent = new core.Agent({
    config: {
      label,
      walletConfig: {
        id: `${label}-${crypto.randomUUID()}`,
        key: core.TypedArrayEncoder.toBase58(crypto.randomBytes(32)),
        keyDerivationMethod: core.KeyDerivationMethod.Raw,
        storage: { type: 'sqlite', inMemory: true },
      },
      logger: new core.ConsoleLogger(core.LogLevel.warn),
      endpoints: ['http://127.0.0.1:0'], // set once the port is known
    },
    dependencies: agentDependencies,
    modules: {
      askar: new askar.AskarModule({ ariesAskar: ariesAskarNodeJS }),
      // Never auto-accept: the verifier's record must stay in
      // presentation-received (as proofgate leaves it before its check),
      // and the holder chooses what it presents.
      proofs: new core.ProofsModule({
        autoAcceptProofs: core.AutoAcceptProof.Never,
        proofProtocols: [new core.V2ProofProtocol({ proofFormats: [pexFormat] })],
      }),
    },
  })
  agent.registerInboundTransport(inbound)
  agent.registerOutboundTransport(new core.HttpOutboundTransport())
  await agent.initialize()
  const server = inbound.server
  if (!server.listening) await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject))
  agent.config.endpoints = [`http://127.0.0.1:${server.address().port}`]
  return agent
}

// waitProof resolves with agent's record on thread thid once it reaches
// state; it rejects when the record is abandoned.
function waitProof(agent, thid, state) {
  return new Promise((resolve, reject) => {
    const onChange = ({ payload: { proofRecord: r } }) => {
      if (r.threadId !== thid) return
      if (r.state === state || r.state === 'abandoned') {
        agent.events.off(core.ProofEventTypes.ProofStateChanged, onChange)
        if (r.state === state) resolve(r)
        else reject(new Error(`record ${r.id} abandoned: ${r.errorMessage}`))
      }
    }
    agent.events.on(core.ProofEventTypes.ProofStateChanged, onChange)
  })
}

// selfSigned has the holder sign itself a credential (holder.js's
// POST /credentials) and store it; it returns the W3cCredentialRecord.
async function selfSigned(holder, issuerDid, holderDid, claims, jwt) {
  const credential = core.JsonTransformer.fromJSON({
    '@context': ['https://www.w3.org/2018/credentials/v1', { '@vocab': 'https://proofgate.example/vocab#' }],
    type: ['VerifiableCredential'],
    issuer: issuerDid,
    issuanceDate: new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    credentialSubject: { id: holderDid, ...claims },
  }, core.W3cCredential)
  const verificationMethod = `${issuerDid}#${issuerDid.slice('did:key:'.length)}`
  const signed = await holder.w3cCredentials.signCredential(jwt
    ? { format: core.ClaimFormat.JwtVc, credential, alg: core.JwaSignatureAlgorithm.EdDSA, verificationMethod }
    : { format: core.ClaimFormat.LdpVc, credential, proofType: 'Ed25519Signature2018', verificationMethod })
  return holder.w3cCredentials.storeCredential({ credential: signed })
}

async function newDidKey(agent) {
  const res = await agent.dids.create({ method: 'key', options: { keyType: core.KeyType.Ed25519 } })
  if (res.didState.state !== 'finished') throw new Error(`creating a did:key: ${JSON.stringify(res.didState)}`)
  return res.didState.did
}

// exchange runs one request and its answer.
async function exchange(verifier, holder, presentationDefinition = definition) {
  const { message, proofRecord } = await verifier.proofs.createRequest({
    protocolVersion: 'v2',
    proofFormats: { presentationExchange: { presentationDefinition } },
  })
  const { outOfBandInvitation } = await verifier.oob.createInvitation({ messages: [message], handshake: false })
  const received = waitProof(verifier, proofRecord.threadId, 'presentation-received')
  const asked = waitProof(holder, proofRecord.threadId, 'request-received')
  await holder.oob.receiveInvitationFromUrl(outOfBandInvitation.toUrl({ domain: 'https://verifier.invalid' }))
  const request = await asked
  // Credo picks the credential: the first whose fields pass the (possibly
  // lax) definition.
  await holder.proofs.acceptRequest({ proofRecordId: request.id })
  const record = await received
  return { state: record.state, isVerified: record.isVerified ?? null, formatData: await verifier.proofs.getFormatData(record.id) }
}

async function main() {
  const verifier = await newAgent('proofgate-formdata-verifier', new core.DifPresentationExchangeProofFormatService())
  const holderFormat = new LaxHolderFormat()
  const holder = await newAgent('proofgate-formdata-holder', holderFormat)
  const issuerDid = await newDidKey(holder)
  const holderDid = await newDidKey(holder)

  // meets: the holder has only a credential that meets the filter.
  await selfSigned(holder, issuerDid, holderDid, { givenName: 'Alice', birthDate: '1990-01-01' })
  process.stdout.write(JSON.stringify({ case: 'meets', ...(await exchange(verifier, holder)) }) + '\n')

  // fails: it now has only one that fails it, and ignores filters.
  for (const r of await holder.w3cCredentials.getAllCredentialRecords()) await holder.w3cCredentials.removeCredentialRecord(r.id)
  await selfSigned(holder, issuerDid, holderDid, { givenName: 'Bob', birthDate: '2010-05-05' })
  holderFormat.ignoreFilters = true
  process.stdout.write(JSON.stringify({ case: 'fails', ...(await exchange(verifier, holder)) }) + '\n')

  // jwt-meets and jwt-fails: the same with a JWT credential (EdDSA), which
  // Credo's holder presents as a JWT VP.
  for (const [name, claims, lax] of [['jwt-meets', { givenName: 'Carol', birthDate: '1985-02-02' }, false], ['jwt-fails', { givenName: 'Dan', birthDate: '2011-03-03' }, true]]) {
    for (const r of await holder.w3cCredentials.getAllCredentialRecords()) await holder.w3cCredentials.removeCredentialRecord(r.id)
    await selfSigned(holder, issuerDid, holderDid, claims, true)
    holderFormat.ignoreFilters = lax
    process.stdout.write(JSON.stringify({ case: name, ...(await exchange(verifier, holder, jwtDefinition)) }) + '\n')
  }

  for (const agent of [verifier, holder]) {
    await agent.shutdown()
    await agent.wallet.delete()
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e && e.stack ? e.stack : e)
  process.exit(1)
})
