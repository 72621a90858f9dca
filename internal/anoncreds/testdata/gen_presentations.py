#!/usr/bin/env python3
"""Presentations for internal/anoncreds's tests, with the reference's verdicts.

Makes, in this directory:
  honest_prover.json              an honest proof from prove() below (checks the prover)
  forged_predicate_revealed.json  age 34 "proves" age >= 50 (GE proof over a revealed attribute)
  forged_predicate_revealed_le.json  the same, age <= 20
  rev_reg_id_claimed.json         a rev_reg_id restriction met only by what the prover writes
  cred_def_without_schema_id.json a credential definition without schemaId
  revocation_global_interval.json a timestamp outside the global non_revoked interval
  unused_sub_proof.json           a sub proof that answers no referent

Re-run it (from the repository root) with the reference's venv
(scripts/anoncreds-venv.sh makes it):

  ~/.cache/proofgate/anoncreds-venv/bin/python internal/anoncreds/testdata/gen_presentations.py

It reads the committed corpus (testdata/anoncreds: registry, wallet, cases),
builds each presentation and records the reference's own verdict (PyPI
anoncreds 0.2.3, Presentation.verify) in "reference", and, where proofgate
departs from it on purpose, proofgate's verdict and why in "ours" (as the
corpus does). The tests (verify_test.go) check both. Proofs are random:
every run writes new numbers, never new verdicts.

Presentations are built either from a corpus case (then changed) or by the
small CL prover in this file (prove()), which follows anoncreds-clsignatures'
ProofBuilder with the corpus wallet's credential (testdata/anoncreds/wallet).
An honest presentation from prove() is checked with the reference first, so
the prover is known to be right before it is used to forge.
"""

import copy
import hashlib
import json
import os
import secrets
import sys

import anoncreds
from anoncreds import AnoncredsError, CredentialDefinition, Presentation, Schema

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CORPUS = os.path.join(ROOT, "testdata", "anoncreds")
OUT = os.path.dirname(os.path.abspath(__file__))

LARGE_E_START = 596
CD_PERSON = "55GkHamhTU1ZbTbV2ab9DE:3:CL:55GkHamhTU1ZbTbV2ab9DE:2:person:1.0:default"
SCHEMA_PERSON = "55GkHamhTU1ZbTbV2ab9DE:2:person:1.0"

schemas_json = json.load(open(os.path.join(CORPUS, "registry", "schemas.json")))
defs_json = json.load(open(os.path.join(CORPUS, "registry", "cred_defs.json")))
wallet = json.load(open(os.path.join(CORPUS, "wallet", "wallet.json")))
cases = {c["name"]: c for c in json.load(open(os.path.join(CORPUS, "cases.json")))["cases"]}


def reference(req, pres, schemas=None, defs=None, with_rev=False):
    schemas = schemas if schemas is not None else schemas_json
    defs = defs if defs is not None else defs_json
    try:
        s = {k: Schema.load(json.dumps(v)) for k, v in schemas.items()}
        d = {k: CredentialDefinition.load(json.dumps(v)) for k, v in defs.items()}
        rd = rl = None
        if with_rev:
            from anoncreds import RevocationRegistryDefinition, RevocationStatusList
            rev = os.path.join(CORPUS, "revocation")
            rd = {k: RevocationRegistryDefinition.load(json.dumps(v))
                  for k, v in json.load(open(os.path.join(rev, "rev_reg_defs.json"))).items()}
            rl = [RevocationStatusList.load(json.dumps(v))
                  for v in json.load(open(os.path.join(rev, "rev_status_lists.json")))]
        ok = Presentation.load(json.dumps(pres)).verify(json.dumps(req), s, d, rd, rl)
        return {"anoncreds": anoncreds.library_version(), "verified": bool(ok)}
    except AnoncredsError as e:
        return {"anoncreds": anoncreds.library_version(), "verified": False, "error": str(e)[:300]}


def canon(n):
    return n.replace(" ", "").lower()


def rnd(bits):
    return secrets.randbits(bits)


def four_squares(d):
    assert d >= 0
    import math
    for a in range(math.isqrt(d) + 1):
        for b in range(a, math.isqrt(d - a * a) + 1):
            for c in range(b, math.isqrt(d - a * a - b * b) + 1):
                rest = d - a * a - b * b - c * c
                e = math.isqrt(rest)
                if e * e == rest:
                    return [a, b, c, e]
    raise ValueError(d)


def to_bytes(x):
    return x.to_bytes((x.bit_length() + 7) // 8, "big")


def prove(nonce, cred, pk, revealed, predicates, spurious_m=None):
    """One-credential CL proof.

    revealed: canonical attribute names revealed in the equality proof.
    predicates: [(attr, p_type, value, m_used)] GE proofs; m_used is the
      attribute value the GE proof is made over (the credential's own for an
      honest proof). When the attribute is hidden, the GE proof shares the
      equality proof's m~ (honest); when it is revealed, it gets its own m~
      and spurious_m[attr] = that proof's mj is added to eq_proof.m.
    """
    n = int(pk["n"]); S = int(pk["s"]); Z = int(pk["z"]); Rctxt = int(pk["rctxt"])
    R = {k: int(v) for k, v in pk["r"].items()}
    sig = cred["signature"]["p_credential"]
    A, e, v, m2 = int(sig["a"]), int(sig["e"]), int(sig["v"]), int(sig["m_2"])
    m = {canon(k): int(x["encoded"]) for k, x in cred["values"].items()}
    m["master_secret"] = int(wallet["link_secret"])
    hidden = [k for k in R if k not in revealed]

    r = rnd(2128)
    a_prime = A * pow(S, r, n) % n
    v_prime = v - e * r
    e_prime = e - (1 << LARGE_E_START)
    e_t, v_t, m2_t = rnd(456), rnd(3060), rnd(592)
    m_t = {k: rnd(592) for k in hidden}
    T = pow(a_prime, e_t, n) * pow(S, v_t, n) % n * pow(Rctxt, m2_t, n) % n
    for k in hidden:
        T = T * pow(R[k], m_t[k], n) % n
    taus, c_list = [T], [a_prime]

    ge_state = []
    for attr, ptype, value, m_used in predicates:
        dprime = {"GE": value, "GT": value + 1, "LE": value, "LT": value - 1}[ptype]
        less = ptype in ("LE", "LT")
        delta = (dprime - m_used) if less else (m_used - dprime)
        u = four_squares(delta)
        rr = [rnd(2128) for _ in range(4)]
        r_delta = rnd(2128)
        Ts = [pow(Z, u[i], n) * pow(S, rr[i], n) % n for i in range(4)]
        T_delta = pow(Z, delta, n) * pow(S, r_delta, n) % n
        u_t = [rnd(592) for _ in range(4)]
        r_t = [rnd(672) for _ in range(4)]
        r_delta_t = rnd(672)
        alpha_t = rnd(2787)
        mj_t = m_t[attr] if attr in m_t else rnd(592)
        tau = [pow(Z, u_t[i], n) * pow(S, r_t[i], n) % n for i in range(4)]
        sgn = -1 if less else 1
        tau.append(pow(Z, mj_t, n) * pow(S, sgn * r_delta_t, n) % n)
        q = pow(S, alpha_t, n)
        for i in range(4):
            q = q * pow(Ts[i], u_t[i], n) % n
        tau.append(q)
        taus += tau
        c_list += Ts + [T_delta]
        ge_state.append(dict(attr=attr, ptype=ptype, value=value, m_used=m_used, u=u, rr=rr, r_delta=r_delta,
                             Ts=Ts, T_delta=T_delta, u_t=u_t, r_t=r_t, r_delta_t=r_delta_t, alpha_t=alpha_t,
                             mj_t=mj_t, less=less))

    c_list_bytes = [to_bytes(x) for x in c_list]
    h = hashlib.sha256()
    for t in taus:
        h.update(to_bytes(t))
    for cb in c_list_bytes:
        h.update(cb)
    h.update(to_bytes(int(nonce)))
    c = int.from_bytes(h.digest(), "big")

    eq = {
        "revealed_attrs": {k: str(m[k]) for k in revealed},
        "a_prime": str(a_prime),
        "e": str(e_t + c * e_prime),
        "v": str(v_t + c * v_prime),
        "m": {k: str(m_t[k] + c * m[k]) for k in hidden},
        "m2": str(m2_t + c * m2),
    }
    ges = []
    for g in ge_state:
        mj = g["mj_t"] + c * g["m_used"]
        if g["attr"] in revealed:
            eq["m"][g["attr"]] = str(mj)  # the spurious m-hat: not used by the equality proof
        alpha = g["r_delta"] - sum(g["u"][i] * g["rr"][i] for i in range(4))
        ges.append({
            "u": {str(i): str(g["u_t"][i] + c * g["u"][i]) for i in range(4)},
            "r": dict({str(i): str(g["r_t"][i] + c * g["rr"][i]) for i in range(4)},
                      DELTA=str(g["r_delta_t"] + c * g["r_delta"])),
            "mj": str(mj),
            "alpha": str(g["alpha_t"] + c * alpha),
            "t": dict({str(i): str(g["Ts"][i]) for i in range(4)}, DELTA=str(g["T_delta"])),
            "predicate": {"attr_name": g["attr"], "p_type": g["ptype"], "value": g["value"]},
        })
    return {
        "proofs": [{"primary_proof": {"eq_proof": eq, "ge_proofs": ges}, "non_revoc_proof": None}],
        "aggregated_proof": {"c_hash": str(c), "c_list": [list(b) for b in c_list_bytes]},
    }


def person_presentation(req, proof, predicates, revealed_refs=None):
    cred = wallet["credentials"][0]
    rv = {}
    for ref, name in (revealed_refs or {}).items():
        val = cred["values"][name]
        rv[ref] = {"sub_proof_index": 0, "raw": val["raw"], "encoded": val["encoded"]}
    return {
        "proof": proof,
        "requested_proof": {"revealed_attrs": rv, "self_attested_attrs": {}, "unrevealed_attrs": {},
                            "predicates": {p: {"sub_proof_index": 0} for p in predicates}},
        "identifiers": [{"schema_id": SCHEMA_PERSON, "cred_def_id": CD_PERSON, "rev_reg_id": None, "timestamp": None}],
    }


def write(name, doc):
    path = os.path.join(OUT, name)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{name}: reference {doc['reference']}", file=sys.stderr)


def main():
    if not anoncreds.library_version().startswith("0.2.3"):
        sys.exit("anoncreds 0.2.3 wanted")
    cred = wallet["credentials"][0]
    pk = defs_json[CD_PERSON]["value"]["primary"]
    nonce = str(anoncreds.generate_nonce())

    # 0. The prover is right: an honest proof of age >= 30 over the real age.
    req = {"name": "proof", "version": "1.0", "nonce": nonce, "requested_attributes": {},
           "requested_predicates": {"p": {"name": "age", "p_type": ">=", "p_value": 30}}}
    pres = person_presentation(req, prove(nonce, cred, pk, [], [("age", "GE", 30, 34)]), ["p"])
    ref = reference(req, pres)
    assert ref["verified"], ref
    write("honest_prover.json", {
        "about": "sanity check of gen_presentations.py's CL prover: an honest proof of age >= 30 (age is 34)",
        "source": "internal/anoncreds/testdata/gen_presentations.py prove() with the corpus wallet's person credential",
        "reference": ref, "request": req, "presentation": pres})

    # 1. A false predicate: age is 34, the proof "proves" age >= 50. The
    #    equality proof reveals age (34, honestly) and also carries an m-hat
    #    for age, which the equality proof does not use once age is revealed;
    #    the GE proof is made over 50 with that m-hat as its mj. The
    #    reference VERIFIES it (a bug of anoncreds 0.2.3: it binds mj to
    #    eq_proof.m[age] but does not refuse an m-hat for a revealed
    #    attribute); proofgate refuses it.
    predicate_revealed = {"verified": False, "why": "an equality proof carries no m-hat for a revealed attribute, and a "
                          "GE proof is over a hidden one: an m-hat the equality proof does not use binds mj to nothing; "
                          "the reference accepts both"}
    req = {"name": "proof", "version": "1.0", "nonce": nonce, "requested_attributes": {},
           "requested_predicates": {"p": {"name": "age", "p_type": ">=", "p_value": 50}}}
    pres = person_presentation(req, prove(nonce, cred, pk, ["age"], [("age", "GE", 50, 50)]), ["p"])
    write("forged_predicate_revealed.json", {
        "about": "the holder of the person credential (age 34) 'proves' age >= 50: the equality proof reveals age "
                 "and also lists an m-hat for it, which a revealed attribute's equality check ignores; the GE proof "
                 "is made over 50 with that m-hat as mj",
        "source": "internal/anoncreds/testdata/gen_presentations.py prove(revealed=[age], predicates=[(age, GE, 50, 50)]) "
                  "with the corpus wallet's person credential",
        "reference": reference(req, pres), "ours": predicate_revealed, "request": req, "presentation": pres})

    # 1b. The same with a <= predicate: age 34 'proves' age <= 20.
    req = {"name": "proof", "version": "1.0", "nonce": nonce, "requested_attributes": {},
           "requested_predicates": {"p": {"name": "age", "p_type": "<=", "p_value": 20}}}
    pres = person_presentation(req, prove(nonce, cred, pk, ["age"], [("age", "LE", 20, 18)]), ["p"])
    write("forged_predicate_revealed_le.json", {
        "about": "the holder of the person credential (age 34) 'proves' age <= 20 (as 1, with an LE proof over 18)",
        "source": "internal/anoncreds/testdata/gen_presentations.py prove(revealed=[age], predicates=[(age, LE, 20, 18)])",
        "reference": reference(req, pres), "ours": predicate_revealed, "request": req, "presentation": pres})

    # 2. rev_reg_id restriction met by a non-revocable credential that only
    #    writes the revocable definition's registry id into its identifiers.
    base = cases["restr-cred-def-id"]  # alice (non-revocable cd_person), name revealed
    rev_id = cases["restr-rev-reg-id"]["presentation"]["identifiers"][0]["rev_reg_id"]
    req = copy.deepcopy(base["request"])
    req["requested_attributes"]["r"]["restrictions"] = [{"rev_reg_id": rev_id}]
    pres = copy.deepcopy(base["presentation"])
    pres["identifiers"][0]["rev_reg_id"] = rev_id
    write("rev_reg_id_claimed.json", {
        "about": "a rev_reg_id restriction met by a credential of the non-revocable definition "
                 + CD_PERSON + " whose presentation merely names another definition's registry " + rev_id,
        "source": "internal/anoncreds/testdata/gen_presentations.py: corpus case restr-cred-def-id, restriction replaced by "
                  "rev_reg_id, identifiers[0].rev_reg_id written by hand",
        "reference": reference(req, pres), "request": req, "presentation": pres})

    # 3. A credential definition without schemaId: the presentation names
    #    another schema with the same attributes (another name and issuer)
    #    and meets a schema_name restriction of that schema.
    schemas = copy.deepcopy(schemas_json)
    other = "V4SGRU86Z58d6TV7PBUe6f:2:gold-member:9.9"
    schemas[other] = dict(copy.deepcopy(schemas_json[SCHEMA_PERSON]), name="gold-member", version="9.9",
                          issuerId="V4SGRU86Z58d6TV7PBUe6f")
    defs = copy.deepcopy(defs_json)
    del defs[CD_PERSON]["schemaId"]
    base = cases["reveal-one"]
    req = copy.deepcopy(base["request"])
    req["requested_attributes"]["r1"]["restrictions"] = [{"schema_name": "gold-member", "schema_issuer_did": "V4SGRU86Z58d6TV7PBUe6f"}]
    pres = copy.deepcopy(base["presentation"])
    pres["identifiers"][0]["schema_id"] = other
    write("cred_def_without_schema_id.json", {
        "about": "a credential definition document without schemaId: the presentation names another schema with "
                 "the same attributes and meets that schema's schema_name/schema_issuer_did restriction",
        "source": "internal/anoncreds/testdata/gen_presentations.py: corpus case reveal-one, identifiers[0].schema_id "
                  "rewritten; registry: the corpus's, plus schema " + other + ", and " + CD_PERSON + " without schemaId",
        "registry": {"schemas": {other: schemas[other]}, "cred_defs": {CD_PERSON: defs[CD_PERSON]}},
        "reference": reference(req, pres, schemas, defs), "request": req, "presentation": pres})

    # 4. Revocation accepted unchecked (revocation_unchecked accept): the
    #    request's global non_revoked applies to referent r, which has no
    #    interval of its own; r2 (same credential) has a wide one. The
    #    timestamp is outside the global interval.
    base = cases["revocation-missing"]
    req = copy.deepcopy(base["request"])
    req["requested_attributes"]["r2"] = {"name": "name", "non_revoked": {"from": 0, "to": 2000000000}}
    pres = copy.deepcopy(base["presentation"])
    pres["requested_proof"]["revealed_attrs"]["r2"] = copy.deepcopy(pres["requested_proof"]["revealed_attrs"]["r"])
    pres["identifiers"][0]["timestamp"] = 1600000000
    write("revocation_global_interval.json", {
        "about": "revocation accepted unchecked: timestamp 1600000000 is outside the global non_revoked "
                 "[1700000000, 1700000000] that referent r (no interval of its own) asks; another referent r2 of "
                 "the same credential has its own wide interval",
        "source": "internal/anoncreds/testdata/gen_presentations.py: corpus case revocation-missing, referent r2 added "
                  "(answered by the same revealed name), timestamp written by hand",
        "reference": reference(req, pres, with_rev=True), "request": req, "presentation": pres})

    # 5. A sub proof no referent points at: corpus case typical (two
    #    credentials, honest proofs) with the degree credential's referents
    #    dropped from the request and from requested_proof. Its CL proof is
    #    valid, so the reference VERIFIES it; proofgate refuses it before
    #    any CL math (an honest prover puts in the credentials its
    #    referents need, and each sub proof costs as much as a used one).
    base = cases["typical"]
    req = copy.deepcopy(base["request"])
    pres = copy.deepcopy(base["presentation"])
    for ref in ("a_degree", "a_year"):
        del req["requested_attributes"][ref]
        del pres["requested_proof"]["revealed_attrs"][ref]
    write("unused_sub_proof.json", {
        "about": "sub proof 1 (the degree credential) answers no referent of the request: its referents were "
                 "dropped from the request and from requested_proof",
        "source": "internal/anoncreds/testdata/gen_presentations.py: corpus case typical, referents a_degree and "
                  "a_year removed",
        "reference": reference(req, pres),
        "ours": {"verified": False, "why": "every sub proof must answer a referent: one that answers none proves "
                 "nothing the request asks and costs as much to check as one that does; the reference checks it"},
        "request": req, "presentation": pres})


if __name__ == "__main__":
    main()
