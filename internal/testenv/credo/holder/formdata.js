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
// credentials/v1 and an inline @vocab (nothing is fetched): agents.js.
// Credo's log goes to stderr. Run with NODE_PATH at the holder install and
// LIB_ARIES_ASKAR_PATH at its lib/, as internal/testenv/credo.RunScript does.

const core = require('@credo-ts/core')
const { quietStdout, newAgent, waitProof, selfSigned, newDidKey, runMain } = require('./agents')

quietStdout()

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

runMain(main)
