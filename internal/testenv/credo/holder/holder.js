'use strict'
// A real Credo (@credo-ts 0.5) holder for proofgate's tests: an agent with a
// throw-away in-memory Askar wallet, DIDComm over HTTP on a loopback port,
// present-proof 2.0 with the DIF presentation-exchange format, and
// auto-accept of every proof request. A small JSON control API, also on
// loopback, lets the Go test drive it:
//
//   GET  /status                   {label, credoVersion, askarVersion, endpoint}
//   POST /credentials {claims}     signs itself a W3C JSON-LD credential
//                                  (did:key issuer, Ed25519Signature2018,
//                                  subject = the holder's did:key) and stores it
//   POST /receive {invitationUrl}  takes an out-of-band invitation (long or short URL)
//   GET  /proofs                   the proof exchange records, summarised
//   GET  /proofs/<id>              one record with its format data (request, presentation)
//
// With --anoncreds it also loads anoncreds.js (@credo-ts/anoncreds, libanoncreds
// from LIB_ANONCREDS_PATH): present-proof 2.0 then also answers hlindy
// (legacy indy) and anoncreds proof requests, /status reports anoncredsVersion, and
//
//   POST /anoncreds/credentials {attributes}  issues the holder a real AnonCreds
//                                  credential (see anoncreds.js)
//
// Started by internal/testenv/credo with NODE_PATH pointing at the
// node_modules that scripts/credo-holder.sh installed and
// LIB_ARIES_ASKAR_PATH at the directory holding libaries_askar.so. When it
// is ready it prints one line on stdout:
//
//   proofgate-credo-holder ready {"control":"http://127.0.0.1:…","endpoint":"http://127.0.0.1:…"}
//
// Everything else (Credo's log, one line per request and per proof state
// change; with --log-level debug every DIDComm message in and out) goes to
// stderr. It exits by itself after --max-lifetime seconds (default 900), on
// SIGTERM or SIGINT, or when its stdin closes (the test binary died).

const http = require('http')
const crypto = require('crypto')

const READY_PREFIX = 'proofgate-credo-holder ready '

function parseArgs(argv) {
  const opts = { label: 'proofgate-credo-holder', maxLifetime: 900, logLevel: 'info', anoncreds: false }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`)
      return argv[++i]
    }
    if (a === '--label') opts.label = next()
    else if (a === '--max-lifetime') opts.maxLifetime = Number(next())
    else if (a === '--log-level') opts.logLevel = next()
    else if (a === '--anoncreds') opts.anoncreds = true
    else throw new Error(`unknown argument ${a}`)
  }
  return opts
}

function log(...args) {
  process.stderr.write(`[holder ${new Date().toISOString()}] ${args.join(' ')}\n`)
}

async function main() {
  // stdout carries the ready line only; Credo's ConsoleLogger goes to stderr.
  for (const k of ['log', 'info', 'debug', 'trace']) console[k] = (...a) => console.error(...a)
  const opts = parseArgs(process.argv.slice(2))
  const lifetime = setTimeout(() => {
    log(`max lifetime of ${opts.maxLifetime}s reached, exiting`)
    process.exit(2)
  }, opts.maxLifetime * 1000)
  lifetime.unref()

  // Loaded here, not at the top, so that a missing install is reported as
  // one clear line instead of a stack trace.
  let core, node, askar, askarNode
  try {
    core = require('@credo-ts/core')
    node = require('@credo-ts/node')
    askar = require('@credo-ts/askar')
    askarNode = require('@hyperledger/aries-askar-nodejs')
  } catch (e) {
    throw new Error(`loading the Credo packages failed (is NODE_PATH the install's node_modules?): ${e.message}`)
  }
  const {
    Agent,
    AutoAcceptProof,
    ClaimFormat,
    ConsoleLogger,
    DifPresentationExchangeProofFormatService,
    HttpOutboundTransport,
    JwaSignatureAlgorithm,
    JsonTransformer,
    KeyDerivationMethod,
    KeyType,
    LogLevel,
    ProofEventTypes,
    TypedArrayEncoder,
    V2ProofProtocol,
    W3cCredential,
  } = core
  const { agentDependencies, HttpInboundTransport } = node
  const express = require('express')
  // Only with --anoncreds, so that the JSON-LD holder does not need it.
  const anoncreds = opts.anoncreds ? require('./anoncreds.js').load() : null

  // The native library is opened lazily; open it now for a clear error.
  try {
    askarNode.ariesAskarNodeJS.version()
  } catch (e) {
    throw new Error(`loading libaries_askar failed (LIB_ARIES_ASKAR_PATH=${process.env.LIB_ARIES_ASKAR_PATH || ''}): ${e.message}`)
  }

  // DIDComm inbound transport on loopback only: HttpInboundTransport calls
  // app.listen(port), so bind that to 127.0.0.1; port 0 picks a free one.
  const didcommApp = express()
  const listen = didcommApp.listen.bind(didcommApp)
  didcommApp.listen = (port, ...rest) => listen(port, '127.0.0.1', ...rest)
  const inbound = new HttpInboundTransport({ app: didcommApp, port: 0 })

  const level = { debug: LogLevel.debug, info: LogLevel.info, warn: LogLevel.warn, error: LogLevel.error }[opts.logLevel]
  if (level === undefined) throw new Error(`--log-level ${opts.logLevel}: want debug, info, warn or error`)
  const agent = new Agent({
    config: {
      label: opts.label,
      walletConfig: {
        id: `proofgate-credo-holder-${crypto.randomUUID()}`,
        key: TypedArrayEncoder.toBase58(crypto.randomBytes(32)),
        keyDerivationMethod: KeyDerivationMethod.Raw,
        storage: { type: 'sqlite', inMemory: true },
      },
      logger: new ConsoleLogger(level),
      // Set once the inbound transport knows its port (below).
      endpoints: ['http://127.0.0.1:0'],
    },
    dependencies: agentDependencies,
    modules: {
      askar: new askar.AskarModule({ ariesAskar: askarNode.ariesAskarNodeJS }),
      proofs: new core.ProofsModule({
        autoAcceptProofs: AutoAcceptProof.Always,
        proofProtocols: [
          new V2ProofProtocol({
            proofFormats: [...(anoncreds ? anoncreds.proofFormats : []), new DifPresentationExchangeProofFormatService()],
          }),
        ],
      }),
      ...(anoncreds ? { anoncreds: anoncreds.module } : {}),
    },
  })
  agent.registerInboundTransport(inbound)
  agent.registerOutboundTransport(new HttpOutboundTransport())

  agent.events.on(ProofEventTypes.ProofStateChanged, ({ payload }) => {
    const r = payload.proofRecord
    log(`proof ${r.id} thread ${r.threadId}: ${payload.previousState ?? '-'} -> ${r.state}${r.errorMessage ? ` (${r.errorMessage})` : ''}`)
  })

  if (opts.logLevel === 'debug') {
    // Every DIDComm message in and out, in plaintext, for interop debugging.
    const dump = (m) => JSON.stringify(m).slice(0, 16 << 10)
    agent.events.on(core.AgentEventTypes.AgentMessageProcessed, ({ payload }) =>
      log(`received ${dump(payload.message.toJSON())}`)
    )
    agent.events.on(core.AgentEventTypes.AgentMessageSent, ({ payload }) =>
      log(`sent (${payload.status}) ${dump(payload.message.message.toJSON())}`)
    )
  }

  await agent.initialize()
  const server = inbound.server
  if (!server.listening) await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject))
  const endpoint = `http://127.0.0.1:${server.address().port}`
  agent.config.endpoints = [endpoint]

  // issuer and holder are did:keys in this wallet, made on first use: one
  // pair per key type (Ed25519; P-256 for ES256 JWT credentials).
  const didPairs = {}
  const newDidKey = async (keyType) => {
    const res = await agent.dids.create({ method: 'key', options: { keyType } })
    if (res.didState.state !== 'finished') throw new Error(`creating a did:key: ${JSON.stringify(res.didState)}`)
    return res.didState.did
  }
  const didPair = async (keyType) => {
    didPairs[keyType] = didPairs[keyType] ?? { issuerDid: await newDidKey(keyType), holderDid: await newDidKey(keyType) }
    return didPairs[keyType]
  }

  const routes = {
    'GET /status': async () => ({
      label: opts.label,
      credoVersion: require('@credo-ts/core/package.json').version,
      askarVersion: askarNode.ariesAskarNodeJS.version(),
      ...(anoncreds ? { anoncredsVersion: anoncreds.anoncredsVersion } : {}),
      endpoint,
    }),

    'POST /credentials': async (body) => {
      const claims = body.claims
      if (!claims || typeof claims !== 'object') throw httpError(400, 'claims must be an object')
      // format jwt_vc: a VC-JWT instead (alg EdDSA, or ES256 with P-256
      // keys), which Credo presents as a jwt_vp it signs with the
      // holder's key, of the same type.
      if (body.format !== undefined && body.format !== 'ldp_vc' && body.format !== 'jwt_vc') throw httpError(400, 'format must be ldp_vc or jwt_vc')
      const jwt = body.format === 'jwt_vc'
      const alg = body.alg ?? 'EdDSA'
      if (alg !== 'EdDSA' && !(jwt && alg === 'ES256')) throw httpError(400, 'alg must be EdDSA, or ES256 for jwt_vc')
      const { issuerDid, holderDid } = await didPair(alg === 'ES256' ? KeyType.P256 : KeyType.Ed25519)
      const credential = JsonTransformer.fromJSON(
        {
          // Only contexts both Credo and proofgate have built in, plus an
          // inline one for the subject's terms: nothing is fetched.
          '@context': ['https://www.w3.org/2018/credentials/v1', { '@vocab': 'https://proofgate.example/vocab#' }],
          type: ['VerifiableCredential'],
          issuer: issuerDid,
          issuanceDate: new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
          credentialSubject: { id: holderDid, ...claims },
        },
        W3cCredential
      )
      const verificationMethod = `${issuerDid}#${issuerDid.slice('did:key:'.length)}`
      const signed = await agent.w3cCredentials.signCredential(jwt
        ? { format: ClaimFormat.JwtVc, credential, alg: JwaSignatureAlgorithm[alg], verificationMethod }
        : { format: ClaimFormat.LdpVc, credential, proofType: 'Ed25519Signature2018', verificationMethod })
      const record = await agent.w3cCredentials.storeCredential({ credential: signed })
      return { recordId: record.id, issuerDid, holderDid, ...(jwt ? { jwt: signed.serializedJwt } : { credential: signed.toJson() }) }
    },

    'POST /receive': async (body) => {
      if (typeof body.invitationUrl !== 'string') throw httpError(400, 'invitationUrl must be a string')
      const { outOfBandRecord } = await agent.oob.receiveInvitationFromUrl(body.invitationUrl, {
        label: opts.label,
        autoAcceptInvitation: true,
        autoAcceptConnection: true,
      })
      return { outOfBandRecordId: outOfBandRecord.id, invitationId: outOfBandRecord.outOfBandInvitation.id }
    },

    'GET /proofs': async () => (await agent.proofs.getAll()).map(summary),
  }
  if (anoncreds) routes['POST /anoncreds/credentials'] = (body) => anoncreds.issue(agent, body)

  const control = http.createServer((req, res) => {
    const chunks = []
    let size = 0
    req.on('data', (c) => {
      size += c.length
      if (size > 1 << 20) req.destroy()
      else chunks.push(c)
    })
    req.on('end', async () => {
      const started = Date.now()
      let status = 200
      let out
      try {
        let body = {}
        if (chunks.length) {
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
          } catch (e) {
            throw httpError(400, `body is not JSON: ${e.message}`)
          }
        }
        const path = req.url.split('?')[0]
        const m = /^\/proofs\/([^/]+)$/.exec(path)
        if (req.method === 'GET' && m) {
          const record = await agent.proofs.getById(decodeURIComponent(m[1]))
          out = { ...summary(record), formatData: await agent.proofs.getFormatData(record.id) }
        } else {
          const route = routes[`${req.method} ${path}`]
          if (!route) throw httpError(404, `no route ${req.method} ${path}`)
          out = await route(body)
        }
      } catch (e) {
        status = e.status ?? 500
        out = { error: e.message ?? String(e) }
        log(`${req.method} ${req.url}: ${status} ${out.error}`)
      }
      const raw = JSON.stringify(out)
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(raw) })
      res.end(raw)
      if (status < 400) log(`${req.method} ${req.url}: ${status} in ${Date.now() - started}ms`)
    })
  })
  control.requestTimeout = 60_000
  await new Promise((resolve, reject) => control.listen(0, '127.0.0.1', resolve).once('error', reject))
  const controlUrl = `http://127.0.0.1:${control.address().port}`

  let stopping = false
  const shutdown = async (why) => {
    if (stopping) return
    stopping = true
    log(`stopping: ${why}`)
    const force = setTimeout(() => process.exit(0), 3000)
    force.unref()
    try {
      control.close()
      await agent.shutdown()
      await agent.wallet.delete()
    } catch (e) {
      log(`shutdown: ${e.message}`)
    }
    process.exit(0)
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
  process.stdin.on('end', () => shutdown('stdin closed'))
  process.stdin.on('error', () => shutdown('stdin error'))
  process.stdin.resume()

  process.stdout.write(READY_PREFIX + JSON.stringify({ control: controlUrl, endpoint }) + '\n')
}

function summary(r) {
  return {
    id: r.id,
    threadId: r.threadId,
    parentThreadId: r.parentThreadId ?? null,
    state: r.state,
    protocolVersion: r.protocolVersion,
    role: r.role ?? null,
    isVerified: r.isVerified ?? null,
    errorMessage: r.errorMessage ?? null,
    connectionId: r.connectionId ?? null,
  }
}

function httpError(status, message) {
  const e = new Error(message)
  e.status = status
  return e
}

main().catch((e) => {
  log(`fatal: ${e && e.stack ? e.stack : e}`)
  process.exit(1)
})
