#!/usr/bin/env python3
"""Differential corpus: the committed corpus's valid presentations, mutated.

For a set of valid cases of <corpus>/cases.json, every member of the
presentation is, with probability RATE (env, default 0.15), changed
(numbers +1, negated, zero, with leading zeros, a space or a plus sign;
strings appended to or emptied; maps emptied, nulled or given an unknown
key; lists emptied, nulled, shortened or given a duplicate; integers
moved) or deleted, and the reference's verify_presentation verdict is
recorded. Where the AnonCreds specification decides differently from the
reference (a changed raw value, a referent pointed at a credential that
does not prove it), the case records our verdict and why, as cases.py
does. The Go test TestCorpus checks the output (PROOFGATE_ANONCREDS_MUTATED).

Usage: mutate.py <corpus dir> <out dir> [seed]
"""

import copy
import json
import os
import random
import shutil
import sys

import anoncreds
from anoncreds import AnoncredsError, CredentialDefinition, Presentation, Schema

from cases import ENC_RAW_MISMATCH

MISATTRIBUTED = ("a referent must be proven by the credential the presentation attributes it to; "
                 "the reference does not look")
OUTSIDE_SCHEMA = ("an equality proof's m-hat and revealed values may name only the credential's schema "
                  "attributes (m-hat also the link secret); the reference ignores others")
BASE = ("typical,names-group,self-attested,pred-le-negative-at-bound,two-creds-unrestricted,unrevealed,"
        "encodings,pred-several,restr-value-own,revocable-not-asked,same-attr-twice")


def canon(name):
    return name.replace(" ", "").lower()


def normalize_encoded(s):
    try:
        v = int(s, 10)
        if -2**31 <= v < 2**31 and s.strip() == s and "_" not in s:
            return str(v)
    except ValueError:
        pass
    return s


def main():
    corpus, out = sys.argv[1], sys.argv[2]
    random.seed(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    rate = float(os.environ.get("RATE", "0.15"))
    d = json.load(open(os.path.join(corpus, "cases.json")))
    schemas = {k: Schema.load(json.dumps(v)) for k, v in json.load(open(os.path.join(corpus, "registry", "schemas.json"))).items()}
    defs = {k: CredentialDefinition.load(json.dumps(v)) for k, v in json.load(open(os.path.join(corpus, "registry", "cred_defs.json"))).items()}

    def verify(req, pres):
        try:
            return {"verified": bool(Presentation.load(json.dumps(pres)).verify(json.dumps(req), schemas, defs))}
        except AnoncredsError as e:
            return {"verified": False, "error": str(e)[:300]}

    def ours(req, pres, path, before):
        """Our verdict where it departs from a reference "verified" (before:
        the presentation as it was)."""
        if len(path) >= 2 and path[-2] == "eq_proof" and path[-1] in ("m", "revealed_attrs"):
            old, new = get(before, path), get(pres, path)
            if isinstance(old, dict) and isinstance(new, dict) and set(new) - set(old):
                return {"verified": False, "why": OUTSIDE_SCHEMA}
        rp = pres.get("requested_proof", {})
        if path[-1] == "raw":
            info = rp
            for k in path[1:-1]:
                info = info[k]
            enc = anoncreds.encode_credential_attributes({"x": info["raw"]})["x"]
            if enc != normalize_encoded(info["encoded"]):
                return {"verified": False, "why": ENC_RAW_MISMATCH}
        if path[-1] == "sub_proof_index" and path[1] in ("predicates", "unrevealed_attrs"):
            ref, idx = path[2], rp[path[1]][path[2]]["sub_proof_index"]
            proofs = pres["proof"]["proofs"]
            if not isinstance(idx, int) or not 0 <= idx < len(proofs):
                return None
            sub = proofs[idx]["primary_proof"]
            if path[1] == "predicates":
                p = req["requested_predicates"][ref]
                want = (canon(p["name"]), {">=": "GE", ">": "GT", "<=": "LE", "<": "LT"}[p["p_type"]], p["p_value"])
                if not any((canon(g["predicate"]["attr_name"]), g["predicate"]["p_type"], g["predicate"]["value"]) == want
                           for g in sub["ge_proofs"]):
                    return {"verified": False, "why": MISATTRIBUTED}
            else:
                name = canon(req["requested_attributes"][ref]["name"])
                if name not in sub["eq_proof"]["m"] and name not in sub["eq_proof"]["revealed_attrs"]:
                    return {"verified": False, "why": MISATTRIBUTED}
        return None

    cases = []
    for c in d["cases"]:
        if c["name"] not in os.environ.get("CASES", BASE).split(","):
            continue
        req, pres = c["request"], c["presentation"]
        for path, value in members(pres, ()):
            for mname, new in mutations(value) + [("delete", DELETE)]:
                if random.random() > rate:
                    continue
                t = copy.deepcopy(pres)
                parent = get(t, path[:-1])
                if new is DELETE:
                    if not isinstance(parent, dict):
                        continue
                    del parent[path[-1]]
                else:
                    parent[path[-1]] = new
                case = {"name": c["name"] + ":" + "/".join(map(str, path)) + ":" + mname, "about": "mutation",
                        "request": req, "presentation": t, "reference": verify(req, t)}
                if case["reference"]["verified"] and new is not DELETE:
                    o = ours(req, t, path, pres)
                    if o:
                        case["ours"] = o
                cases.append(case)
    os.makedirs(os.path.join(out, "registry"), exist_ok=True)
    for f in ("schemas.json", "cred_defs.json"):
        shutil.copy(os.path.join(corpus, "registry", f), os.path.join(out, "registry", f))
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump({"generator": "scripts/anoncreds-gen/mutate.py", "anoncreds": anoncreds.library_version(),
                   "cases": cases}, f)
    print(f"{len(cases)} mutations, {sum(c['reference']['verified'] for c in cases)} verified by the reference",
          file=sys.stderr)


DELETE = object()


def members(o, p):
    if isinstance(o, dict):
        for k, v in o.items():
            yield p + (k,), v
            yield from members(v, p + (k,))
    elif isinstance(o, list) and not (o and isinstance(o[0], int)):
        for i, v in enumerate(o):
            yield p + (i,), v
            yield from members(v, p + (i,))


def get(o, p):
    for k in p:
        o = o[k]
    return o


def mutations(v):
    if isinstance(v, str):
        if v.lstrip("-").isdigit():
            return [("plus1", str(int(v) + 1)), ("zeros", "00" + v), ("neg", str(-int(v))), ("zero", "0"),
                    ("space", " " + v), ("plus", "+" + v)]
        return [("append", v + "x"), ("empty", "")]
    if isinstance(v, bool) or v is None:
        return []
    if isinstance(v, int):
        return [("inc", v + 1), ("dec", v - 1), ("str", str(v))]
    if isinstance(v, dict):
        return [("emptymap", {}), ("null", None), ("unknown", dict(v, unknown_member="1"))]
    if isinstance(v, list):
        out = [("emptylist", []), ("null", None)]
        if v:
            out += [("dup", v + [v[-1]]), ("drop", v[:-1])]
        return out
    return []


if __name__ == "__main__":
    main()
