'use strict'
// discard.js: whether a real Credo VERIFIER still takes an answer to an
// out-of-band proof request once the invitation's out-of-band record is
// deleted (agent.oob.deleteById, what credo-controller's
// DELETE /didcomm/oob/{outOfBandId} calls): the credo backend's
// DiscardRecord (internal/upstream/credo/discard.go) deletes it when a
// create fails after the agent's part, because credo-controller has no
// route to delete the proof record itself. In one node process it runs a
// verifier agent and a holder agent (@credo-ts 0.5.19, in-memory Askar
// wallets, DIDComm over HTTP on loopback ports), and for each case:
//
//   - the verifier creates a present-proof 2.0 request with the
//     presentationExchange format and an invitation carrying it, as
//     credo-controller's create-request-oob does: agent.proofs.createRequest,
//     then agent.oob.createInvitation({ messages: [message],
//     autoAcceptConnection: true }) with the default handshake (no
//     handshake override), and invitationDid when the request reuses
//     connections;
//   - in the "discarded" cases the verifier deletes the invitation's
//     out-of-band record before the holder receives it;
//   - the holder receives the invitation and, if the request reaches it,
//     answers with a VP of a credential it signed itself;
//   - after the verifier's record reached presentation-received, or 10 s
//     without it, prints one JSON line: {"case", "invitationId",
//     "outOfBandRecord" (the verifier's, as credo-controller's
//     GET /didcomm/oob lists it: toJSON), "verifierState",
//     "presentationReceived", "holderState", "holderConnectionState",
//     "error"}.
//
// Cases: "kept" (a new connection: the holder's DID exchange, then the
// request over it), "discarded" (the same, the out-of-band record deleted),
// "kept-reused" and "discarded-reused" (the invitation names the
// verifier's invitationDid, which the holder already has a connection
// from, and the holder receives it with reuseConnection: it answers over
// that connection without any handshake).
//
// Credentials are signed by the holder itself as formdata.js's are
// (did:key issuer, Ed25519Signature2018, contexts credentials/v1 and an
// inline @vocab: nothing is fetched). Credo's log goes to stderr. Run with
// NODE_PATH at the holder install and LIB_ARIES_ASKAR_PATH at its lib/, as
// internal/testenv/credo.RunScript does.

const crypto = require('crypto')
const core = require('@credo-ts/core')
const { agentDependencies, HttpInboundTransport } = require('@credo-ts/node')
const askar = require('@credo-ts/askar')
const { ariesAskarNodeJS } = require('@hyperledger/aries-askar-nodejs')
const express = require('express')

// stdout carries the result lines only.
for (const k of ['log', 'info', 'debug', 'trace']) console[k] = (...a) => console.error(...a)

// How long a discarded request is given to be answered anyway.
const waitMs = 10_000

const definition = {
  id: 'f3b0c2d4-8e1a-4b6c-9d2e-5a7f1c3e9b20',
  input_descriptors: [{
    id: 'given_name',
    name: 'Given name',
    constraints: { fields: [{ path: ['$.credentialSubject.givenName'] }] },
  }],
}

// newAgent makes an agent whose DIDComm inbound transport listens on a
// loopback port of its own (formdata.js's newAgent: HttpInboundTransport
// calls app.listen(port), bound here to 127.0.0.1; port 0 picks a free one).
async function newAgent(label) {
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
      // Never auto-accept: the verifier's record stays in
      // presentation-received (as proofgate leaves it), and the holder
      // answers when the script says.
      proofs: new core.ProofsModule({
        autoAcceptProofs: core.AutoAcceptProof.Never,
        proofProtocols: [new core.V2ProofProtocol({ proofFormats: [new core.DifPresentationExchangeProofFormatService()] })],
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
// state, or with null after ms (formdata.js's waitProof, bounded).
function waitProof(agent, thid, state, ms) {
  return new Promise((resolve) => {
    const done = (r) => {
      clearTimeout(timer)
      agent.events.off(core.ProofEventTypes.ProofStateChanged, onChange)
      resolve(r)
    }
    const onChange = ({ payload: { proofRecord: r } }) => {
      if (r.threadId === thid && r.state === state) done(r)
    }
    const timer = setTimeout(() => done(null), ms)
    agent.events.on(core.ProofEventTypes.ProofStateChanged, onChange)
  })
}

// selfSigned has the holder sign itself a credential and store it
// (formdata.js's selfSigned, JSON-LD only).
async function selfSigned(holder, issuerDid, holderDid, claims) {
  const credential = core.JsonTransformer.fromJSON({
    '@context': ['https://www.w3.org/2018/credentials/v1', { '@vocab': 'https://proofgate.example/vocab#' }],
    type: ['VerifiableCredential'],
    issuer: issuerDid,
    issuanceDate: new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    credentialSubject: { id: holderDid, ...claims },
  }, core.W3cCredential)
  const verificationMethod = `${issuerDid}#${issuerDid.slice('did:key:'.length)}`
  const signed = await holder.w3cCredentials.signCredential({ format: core.ClaimFormat.LdpVc, credential, proofType: 'Ed25519Signature2018', verificationMethod })
  return holder.w3cCredentials.storeCredential({ credential: signed })
}

async function newDidKey(agent) {
  const res = await agent.dids.create({ method: 'key', options: { keyType: core.KeyType.Ed25519 } })
  if (res.didState.state !== 'finished') throw new Error(`creating a did:key: ${JSON.stringify(res.didState)}`)
  return res.didState.did
}

// invitationDid makes a did:peer:2 as credo-controller's create-invitation
// does when it is given none (createPeerDidDocumentFromServices of the
// agent's routing).
async function invitationDid(agent) {
  const routing = await agent.mediationRecipient.getRouting({})
  const didDocument = core.createPeerDidDocumentFromServices([{
    id: 'didcomm', recipientKeys: [routing.recipientKey], routingKeys: routing.routingKeys, serviceEndpoint: routing.endpoints[0],
  }])
  const did = await agent.dids.create({ method: 'peer', didDocument, options: { numAlgo: core.PeerDidNumAlgo.MultipleInceptionKeyWithoutDoc } })
  if (did.didState.state !== 'finished') throw new Error(`creating a did:peer: ${JSON.stringify(did.didState)}`)
  return did.didState.did
}

// connect gives the holder a completed connection from an invitation of
// the verifier's that names did (and carries no request).
async function connect(verifier, holder, did) {
  const { outOfBandInvitation } = await verifier.oob.createInvitation({ invitationDid: did, autoAcceptConnection: true })
  const { connectionRecord } = await holder.oob.receiveInvitationFromUrl(outOfBandInvitation.toUrl({ domain: 'https://verifier.invalid' }))
  await holder.connections.returnWhenIsConnected(connectionRecord.id, { timeoutMs: 20_000 })
}

// run is one case: a request in an invitation (naming did when given),
// its out-of-band record deleted when discard, received by the holder.
async function run(verifier, holder, { discard, did }) {
  const { message, proofRecord } = await verifier.proofs.createRequest({
    protocolVersion: 'v2',
    proofFormats: { presentationExchange: { presentationDefinition: definition } },
  })
  const thid = proofRecord.threadId
  const outOfBandRecord = await verifier.oob.createInvitation({ messages: [message], autoAcceptConnection: true, ...(did ? { invitationDid: did } : {}) })
  // As credo-controller's GET /didcomm/oob lists it.
  const listed = outOfBandRecord.toJSON()
  if (discard) await verifier.oob.deleteById(outOfBandRecord.id)

  let error = null
  const received = waitProof(verifier, thid, 'presentation-received', waitMs)
  const asked = waitProof(holder, thid, 'request-received', waitMs)
  let connectionRecord
  try {
    ({ connectionRecord } = await holder.oob.receiveInvitationFromUrl(
      outOfBandRecord.outOfBandInvitation.toUrl({ domain: 'https://verifier.invalid' }), { reuseConnection: Boolean(did) }))
    const request = await asked
    if (request) await holder.proofs.acceptRequest({ proofRecordId: request.id })
  } catch (e) {
    error = String(e && e.message ? e.message : e)
  }
  const presented = await received
  const holderRecord = (await holder.proofs.findAllByQuery({ threadId: thid }))[0]
  const connection = connectionRecord && await holder.connections.findById(connectionRecord.id)
  return {
    invitationId: outOfBandRecord.outOfBandInvitation.id,
    outOfBandRecord: listed,
    verifierState: (await verifier.proofs.getById(proofRecord.id)).state,
    presentationReceived: presented !== null,
    holderState: holderRecord ? holderRecord.state : null,
    holderConnectionState: connection ? connection.state : null,
    error,
  }
}

async function main() {
  const verifier = await newAgent('proofgate-discard-verifier')
  const holder = await newAgent('proofgate-discard-holder')
  await selfSigned(holder, await newDidKey(holder), await newDidKey(holder), { givenName: 'Alice' })

  for (const [name, discard] of [['kept', false], ['discarded', true]]) {
    process.stdout.write(JSON.stringify({ case: name, ...(await run(verifier, holder, { discard })) }) + '\n')
  }
  const did = await invitationDid(verifier)
  await connect(verifier, holder, did)
  for (const [name, discard] of [['kept-reused', false], ['discarded-reused', true]]) {
    process.stdout.write(JSON.stringify({ case: name, ...(await run(verifier, holder, { discard, did })) }) + '\n')
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
