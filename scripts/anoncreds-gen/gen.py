#!/usr/bin/env python3
"""Generate the AnonCreds verification corpus with the reference library.

Uses the PyPI package `anoncreds` (the Python wrapper of hyperledger/anoncreds-rs,
shipping its native library), pinned to the version in ANONCREDS_PIN below.
It creates schemas, credential definitions (revocable and not), credentials and
presentations offline, derives tampered variants, and records for every case
the reference's own verify_presentation verdict. The Go tests in
internal/anoncreds read the output and need no Python.

Output (under the directory given as the only argument, default
testdata/anoncreds):
  registry/schemas.json       {schema id: schema}
  registry/cred_defs.json     {cred def id: credential definition}
  revocation/rev_reg_defs.json  {rev reg def id: revocation registry definition}
  revocation/rev_status_lists.json [revocation status list]
  (registry/ is a directory the files source of anoncreds_registry reads)
  wallet/wallet.json          the holder's link secret and non-revocable credentials
  cases.json                  [{name, about, request, presentation,
                                reference: {verified, error},
                                ours: {verified, why}? (only where we depart)}]

Usage: scripts/anoncreds-gen/gen.py [outdir]   (cases.py holds the case list)
"""

import copy
import json
import os
import sys
import time

import anoncreds
import cases
from anoncreds import (
    AnoncredsError,
    Credential,
    CredentialDefinition,
    CredentialOffer,
    CredentialRequest,
    CredentialRevocationConfig,
    CredentialRevocationState,
    Presentation,
    PresentCredentials,
    RevocationRegistryDefinition,
    RevocationStatusList,
    Schema,
)

ANONCREDS_PIN = "0.2.3"

LEGACY_DID = "55GkHamhTU1ZbTbV2ab9DE"
WEB_DID = "did:web:issuer.example.com"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "testdata/anoncreds"
    version = anoncreds.library_version()
    if not version.startswith(ANONCREDS_PIN):
        sys.exit(f"anoncreds {ANONCREDS_PIN} wanted, found {version}")
    g = Generator(out)
    g.issue()
    cases.add_all(g)
    g.write()


def encode(raw):
    return anoncreds.encode_credential_attributes({"x": raw})["x"]


class Generator:
    def __init__(self, out):
        self.out = out
        self.schemas = {}
        self.cred_defs = {}
        self.rev_reg_defs = {}
        self.rev_status_lists = []
        self.cases = []
        self.link_secret = anoncreds.create_link_secret()
        self.tails_dir = os.path.join(os.environ.get("TMPDIR", "/tmp"), "anoncreds-gen-tails")
        os.makedirs(self.tails_dir, exist_ok=True)

    # ---- issuing -------------------------------------------------------

    def schema(self, issuer, name, version, attrs, legacy):
        s = Schema.create(name, version, issuer, attrs)
        sid = f"{issuer}:2:{name}:{version}" if legacy else f"{issuer}/schemas/{name}/{version}"
        self.schemas[sid] = s
        return sid

    def cred_def(self, issuer, sid, tag, legacy, revocable=False):
        cd, cd_priv, kcp = CredentialDefinition.create(
            sid, self.schemas[sid], issuer, tag, "CL", support_revocation=revocable)
        cid = f"{issuer}:3:CL:{sid}:{tag}" if legacy else f"{issuer}/cred-defs/{tag}"
        self.cred_defs[cid] = cd
        self._priv = getattr(self, "_priv", {})
        self._priv[cid] = (cd_priv, kcp)
        return cid

    def credential(self, cid, values, rev=None):
        cd_priv, kcp = self._priv[cid]
        cd = self.cred_defs[cid]
        sid = cd.schema_id
        offer = CredentialOffer.create(sid, cid, kcp)
        req, meta = CredentialRequest.create("proofgate-corpus", None, cd, self.link_secret, "default", offer)
        cfg = None
        rev_def = None
        if rev is not None:
            rev_def, rev_priv, status, idx = rev
            cfg = CredentialRevocationConfig(rev_def, rev_priv, status, idx)
        cred = Credential.create(cd, cd_priv, offer, req, values, None, cfg)
        return cred.process(meta, self.link_secret, cd, rev_def)

    def issue(self):
        t0 = time.time()
        self.person = self.schema(LEGACY_DID, "person", "1.0",
                                  ["name", "age", "birthdate_dateint", "city", "Favourite Colour", "balance"], True)
        self.degree = self.schema(WEB_DID, "degree", "2.1", ["degree", "year", "gpa", "note"], False)
        self.cd_person = self.cred_def(LEGACY_DID, self.person, "default", True)
        self.cd_degree = self.cred_def(WEB_DID, self.degree, "degree", False)
        self.cd_person_rev = self.cred_def(LEGACY_DID, self.person, "revocable", True, revocable=True)
        print(f"cred defs in {time.time() - t0:.1f}s", file=sys.stderr)

        # a revocation registry for the revocable definition
        rid = f"{LEGACY_DID}:4:{self.cd_person_rev}:CL_ACCUM:0"
        rdef, rpriv = RevocationRegistryDefinition.create(
            self.cd_person_rev, self.cred_defs[self.cd_person_rev], LEGACY_DID, "0", "CL_ACCUM", 8,
            tails_dir_path=self.tails_dir)
        self.rev_ts = 1700000000
        status = RevocationStatusList.create(
            self.cred_defs[self.cd_person_rev], rid, rdef, rpriv, LEGACY_DID, True, self.rev_ts)
        self.rev_reg_defs[rid] = rdef
        self.rev_status_lists.append(status)
        self.rev_id = rid

        self.alice_values = {"name": "Alice Example", "age": "34", "birthdate_dateint": "19900615",
                             "city": "Zürich", "Favourite Colour": "blue", "balance": "-12"}
        self.alice = self.credential(self.cd_person, self.alice_values)
        self.alice_degree_values = {"degree": "Bachelor of Science", "year": "2015", "gpa": "007",
                                    "note": "2147483648"}
        self.alice_degree = self.credential(self.cd_degree, self.alice_degree_values)
        self.alice_rev = self.credential(self.cd_person_rev, self.alice_values,
                                         (rdef, rpriv, status, 1))
        self.alice_rev_state = CredentialRevocationState.create(
            rdef, status, 1, rdef.tails_location)
        print(f"issued in {time.time() - t0:.1f}s", file=sys.stderr)

    # ---- presenting and verifying --------------------------------------

    def request(self, attrs=None, preds=None, non_revoked=None, nonce=None):
        r = {"name": "proof", "version": "1.0", "nonce": nonce or anoncreds.generate_nonce(),
             "requested_attributes": attrs or {}, "requested_predicates": preds or {}}
        if non_revoked:
            r["non_revoked"] = non_revoked
        return r

    def present(self, req, uses, self_attested=None):
        """uses: list of (credential, [(referent, reveal)], [predicate referents], rev?)"""
        pc = PresentCredentials()
        for use in uses:
            cred, attrs, preds = use[0], use[1], use[2]
            rev = len(use) > 3 and use[3]
            ts = self.rev_ts if rev else None
            state = self.alice_rev_state if rev else None
            for ref, reveal in attrs:
                pc.add_attributes(cred, ref, reveal=reveal, timestamp=ts, rev_state=state)
            if preds:
                pc.add_predicates(cred, *preds, timestamp=ts, rev_state=state)
        pres = Presentation.create(req, pc, self_attested, self.link_secret,
                                   self.schemas, self.cred_defs)
        return json.loads(pres.to_json())

    def verify(self, req, pres, with_rev=False):
        try:
            ok = Presentation.load(json.dumps(pres)).verify(
                json.dumps(req), self.schemas, self.cred_defs,
                self.rev_reg_defs if with_rev else None,
                self.rev_status_lists if with_rev else None)
            return {"verified": bool(ok)}
        except AnoncredsError as e:
            return {"verified": False, "error": str(e.message if hasattr(e, "message") else e)}

    def add(self, name, about, req, pres, ours=None, with_rev=False):
        ref = self.verify(req, pres, with_rev)
        case = {"name": name, "about": about, "request": req, "presentation": pres, "reference": ref}
        if ours is not None:
            case["ours"] = ours
        self.cases.append(case)
        print(f"{name}: reference verified={ref['verified']} {ref.get('error', '')}", file=sys.stderr)

    def write(self):
        reg = os.path.join(self.out, "registry")
        os.makedirs(reg, exist_ok=True)
        dump = lambda objs: {k: json.loads(v.to_json()) for k, v in objs.items()}
        with open(os.path.join(reg, "schemas.json"), "w") as f:
            json.dump(dump(self.schemas), f, indent=1, ensure_ascii=False)
        with open(os.path.join(reg, "cred_defs.json"), "w") as f:
            json.dump(dump(self.cred_defs), f, indent=1)
        rev = os.path.join(self.out, "revocation")
        os.makedirs(rev, exist_ok=True)
        with open(os.path.join(rev, "rev_reg_defs.json"), "w") as f:
            json.dump(dump(self.rev_reg_defs), f, indent=1)
        with open(os.path.join(rev, "rev_status_lists.json"), "w") as f:
            json.dump([json.loads(s.to_json()) for s in self.rev_status_lists], f, indent=1)
        # The holder's side, for scripts/anoncreds-gen/present.py (test data:
        # a link secret and credentials made for this corpus only).
        wallet = os.path.join(self.out, "wallet")
        os.makedirs(wallet, exist_ok=True)
        with open(os.path.join(wallet, "wallet.json"), "w") as f:
            json.dump({"link_secret": self.link_secret,
                       "credentials": [json.loads(c.to_json()) for c in (self.alice, self.alice_degree)]},
                      f, indent=1, ensure_ascii=False)
        with open(os.path.join(self.out, "cases.json"), "w") as f:
            json.dump({"generator": "scripts/anoncreds-gen/gen.py", "anoncreds": anoncreds.library_version(),
                       "cases": self.cases}, f, indent=1, ensure_ascii=False)
        print(f"{len(self.cases)} cases written to {self.out}", file=sys.stderr)



if __name__ == "__main__":
    main()
