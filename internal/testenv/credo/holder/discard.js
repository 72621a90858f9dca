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
// Credentials are signed by the holder itself (agents.js: did:key issuer,
// Ed25519Signature2018, contexts credentials/v1 and an inline @vocab:
// nothing is fetched). Credo's log goes to stderr. Run with
// NODE_PATH at the holder install and LIB_ARIES_ASKAR_PATH at its lib/, as
// internal/testenv/credo.RunScript does.

const core = require('@credo-ts/core')
const { quietStdout, newAgent, waitProof, selfSigned, newDidKey, runMain } = require('./agents')

quietStdout()

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

runMain(main)
