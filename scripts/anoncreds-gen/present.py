#!/usr/bin/env python3
"""Answers a presentation request with the reference library, as a wallet.

Reads an AnonCreds presentation request (JSON) on stdin and writes a
presentation made with PyPI `anoncreds` from the corpus wallet
(<corpus>/wallet/wallet.json, <corpus>/registry/). Each attribute referent
is revealed from the first credential whose schema has the attribute(s)
and whose identifiers (cred_def_id, schema_*, issuer_*) meet the
referent's restrictions; each predicate likewise. With --tamper-raw, the first
revealed raw value is changed afterwards (its encoded value kept).

Usage: present.py <corpus dir> [--tamper-raw] < request.json > presentation.json
"""

import json
import sys

from anoncreds import Credential, CredentialDefinition, Presentation, PresentCredentials, Schema


def canon(name):
    return name.replace(" ", "").lower()


def main():
    corpus = sys.argv[1]
    tamper = "--tamper-raw" in sys.argv[2:]
    req = json.load(sys.stdin)
    wallet = json.load(open(f"{corpus}/wallet/wallet.json"))
    schemas = json.load(open(f"{corpus}/registry/schemas.json"))
    cred_defs = json.load(open(f"{corpus}/registry/cred_defs.json"))
    creds = [Credential.load(json.dumps(c)) for c in wallet["credentials"]]

    def fits(cred, names, restrictions):
        sid, cid = cred.schema_id, cred.cred_def_id
        attrs = {canon(a) for a in schemas[sid]["attrNames"]}
        if not all(canon(n) in attrs for n in names):
            return False
        issuer, schema_issuer = cred_defs[cid]["issuerId"], schemas[sid]["issuerId"]
        facts = {"cred_def_id": cid, "schema_id": sid, "schema_name": schemas[sid]["name"],
                 "schema_version": schemas[sid]["version"], "issuer_id": issuer, "issuer_did": issuer,
                 "schema_issuer_id": schema_issuer, "schema_issuer_did": schema_issuer}
        return not restrictions or any(all(facts.get(k) == v for k, v in r.items()) for r in restrictions)

    def pick(names, restrictions):
        for c in creds:
            if fits(c, names, restrictions):
                return c
        sys.exit(f"no credential for {names}")

    pc = PresentCredentials()
    for ref, a in req.get("requested_attributes", {}).items():
        names = a.get("names") or [a["name"]]
        pc.add_attributes(pick(names, a.get("restrictions")), ref, reveal=True)
    for ref, p in req.get("requested_predicates", {}).items():
        pc.add_predicates(pick([p["name"]], p.get("restrictions")), ref)
    pres = Presentation.create(json.dumps(req), pc, {}, wallet["link_secret"],
                               {k: Schema.load(json.dumps(v)) for k, v in schemas.items()},
                               {k: CredentialDefinition.load(json.dumps(v)) for k, v in cred_defs.items()})
    out = json.loads(pres.to_json())
    if tamper:
        revealed = out["requested_proof"]["revealed_attrs"]
        first = sorted(revealed)[0]
        revealed[first]["raw"] += " (changed)"
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
