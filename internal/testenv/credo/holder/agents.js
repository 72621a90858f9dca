'use strict'
// agents.js: what the one-process Credo scripts (formdata.js, discard.js)
// share: agents over loopback DIDComm, self-signed credentials, and waiting
// for a proof record's state. @credo-ts 0.5.19, in-memory Askar wallets.

const crypto = require('crypto')
const core = require('@credo-ts/core')
const { agentDependencies, HttpInboundTransport } = require('@credo-ts/node')
const askar = require('@credo-ts/askar')
const { ariesAskarNodeJS } = require('@hyperledger/aries-askar-nodejs')
const express = require('express')

// quietStdout sends console output to stderr: stdout carries a script's
// result lines only.
function quietStdout() {
  for (const k of ['log', 'info', 'debug', 'trace']) console[k] = (...a) => console.error(...a)
}

// newAgent makes an agent whose DIDComm inbound transport listens on a
// loopback port of its own (holder.js's approach: HttpInboundTransport calls
// app.listen(port), bound here to 127.0.0.1; port 0 picks a free one). Its
// present-proof 2.0 takes the presentation-exchange format pexFormat (a
// DifPresentationExchangeProofFormatService) and never auto-accepts: a
// verifier's record stays in presentation-received, as proofgate leaves it
// before its check, and a holder answers when the script says.
async function newAgent(label, pexFormat = new core.DifPresentationExchangeProofFormatService()) {
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
// state. Without ms it rejects when the record is abandoned first; with
// ms it resolves with null after ms instead (a state that may never come).
function waitProof(agent, thid, state, ms) {
  return new Promise((resolve, reject) => {
    let timer
    const done = (settle, v) => {
      clearTimeout(timer)
      agent.events.off(core.ProofEventTypes.ProofStateChanged, onChange)
      settle(v)
    }
    const onChange = ({ payload: { proofRecord: r } }) => {
      if (r.threadId !== thid) return
      if (r.state === state) done(resolve, r)
      else if (r.state === 'abandoned' && ms === undefined) done(reject, new Error(`record ${r.id} abandoned: ${r.errorMessage}`))
    }
    if (ms !== undefined) timer = setTimeout(() => done(resolve, null), ms)
    agent.events.on(core.ProofEventTypes.ProofStateChanged, onChange)
  })
}

// selfSigned has the holder sign itself a credential (holder.js's
// POST /credentials: did:key issuer, the subject the holder's own did:key,
// contexts credentials/v1 and an inline @vocab, so nothing is fetched) and
// store it: Ed25519Signature2018, or a VC-JWT (EdDSA) when jwt. It returns
// the W3cCredentialRecord.
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

// newDidKey makes an Ed25519 did:key in agent's wallet.
async function newDidKey(agent) {
  const res = await agent.dids.create({ method: 'key', options: { keyType: core.KeyType.Ed25519 } })
  if (res.didState.state !== 'finished') throw new Error(`creating a did:key: ${JSON.stringify(res.didState)}`)
  return res.didState.did
}

// runMain runs main and exits: 0 when it resolves, 1 with its error on
// stderr when it rejects.
function runMain(main) {
  main().then(() => process.exit(0), (e) => {
    console.error(e && e.stack ? e.stack : e)
    process.exit(1)
  })
}

module.exports = { quietStdout, newAgent, waitProof, selfSigned, newDidKey, runMain }
