// pex-verifier.js: what Credo's verifier makes of a DIF presentation that
// fails its definition's constraints. It runs the verifier's own entry
// point, DifPresentationExchangeProofFormatService.processPresentation,
// with the signature check stubbed to pass (signatures are not what is
// asked), and PEX's evaluation of the same submission, for each case, and
// prints one JSON line per case: {"case", "credoValid", "pexMet"}.
// Run with NODE_PATH at the holder install (scripts/credo-holder.sh), as
// internal/testenv/credo.RunScript does.
const core = require('@credo-ts/core');
const build = '@credo-ts/core/build/modules/';
const { DifPresentationExchangeService } = require(build + 'dif-presentation-exchange/DifPresentationExchangeService');
const { DifPresentationExchangeProofFormatService } = require(build + 'proofs/formats/dif-presentation-exchange/DifPresentationExchangeProofFormatService');
const { W3cCredentialService } = require(build + 'vc');
const { PEX } = require('@animo-id/pex');

const svc = new DifPresentationExchangeService(undefined);
const agentContext = {
  dependencyManager: {
    resolve: (c) => (c === DifPresentationExchangeService ? svc
      : c === W3cCredentialService ? { verifyPresentation: async () => ({ isValid: true }) } : undefined),
  },
  config: { logger: { error() {}, debug() {}, info() {}, warn() {}, trace() {} } },
};
const formats = new DifPresentationExchangeProofFormatService();

const subject = { id: 'did:example:holder', birthDate: '1990-01-01', score: 25, name: 'alice' };
const proof = { type: 'Ed25519Signature2018', created: '2024-01-01T00:00:00Z', proofPurpose: 'assertionMethod', verificationMethod: 'did:key:z6Mk#k', jws: 'a..b' };
const vc = { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], issuer: 'did:key:z6Mk', issuanceDate: '2020-01-01T00:00:00Z', credentialSubject: subject, proof };
const vp = {
  '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiablePresentation'], holder: 'did:example:holder', verifiableCredential: [vc],
  presentation_submission: { id: 's1', definition_id: 'pd1', descriptor_map: [{ id: 'd1', format: 'ldp_vc', path: '$.verifiableCredential[0]' }] },
  proof: { ...proof, proofPurpose: 'authentication', challenge: 'c' },
};
const attachment = (json) => new core.Attachment({ id: 'a', data: new core.AttachmentData({ json }) });

// Each case's one field is unmet by the credential above (1990, 25, alice),
// but the control's.
const cases = [
  ['control', 'birthDate', { type: 'string', format: 'date', formatMinimum: '1980-01-01' }],
  ['formatMinimum', 'birthDate', { type: 'string', format: 'date', formatMinimum: '2000-01-01' }],
  ['minimum', 'score', { type: 'number', minimum: 30 }],
  ['pattern', 'name', { type: 'string', pattern: '^b' }],
  ['const', 'name', { const: 'bob' }],
  ['absent path', 'nosuch', undefined],
];

(async () => {
  for (const [name, path, filter] of cases) {
    const field = { path: ['$.credentialSubject.' + path] };
    if (filter) field.filter = filter;
    const definition = { id: 'pd1', input_descriptors: [{ id: 'd1', constraints: { fields: [field] } }] };
    const credoValid = await formats.processPresentation(agentContext, {
      requestAttachment: attachment({ presentation_definition: definition, options: { challenge: 'c' } }),
      attachment: attachment(vp), proofRecord: { id: 'p' },
    });
    let pexMet;
    try {
      const r = new PEX({ hasher: core.Hasher.hash }).evaluatePresentation(definition, vp, { limitDisclosureSignatureSuites: [] });
      pexMet = r.areRequiredCredentialsPresent === 'info' && (r.errors || []).length === 0;
    } catch (e) {
      pexMet = false;
    }
    console.log(JSON.stringify({ case: name, credoValid, pexMet }));
  }
})().catch((e) => { console.error(e); process.exit(1); });
