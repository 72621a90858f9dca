"""Times the reference verify_presentation on the corpus case "typical" (see README)."""
import json, time, sys
from anoncreds import Presentation, Schema, CredentialDefinition
d = sys.argv[1]
cases = json.load(open(d + "/cases.json"))["cases"]
c = [c for c in cases if c["name"] == "typical"][0]
schemas = {k: Schema.load(v) for k, v in json.load(open(d + "/registry/schemas.json")).items()}
defs = {k: CredentialDefinition.load(v) for k, v in json.load(open(d + "/registry/cred_defs.json")).items()}
req = json.dumps(c["request"]); pres = Presentation.load(json.dumps(c["presentation"]))
assert pres.verify(req, schemas, defs)
import os
n = int(os.environ.get("N", "50"))
t, c = time.perf_counter(), time.process_time()
for _ in range(n):
    pres.verify(req, schemas, defs)
wall, cpu = time.perf_counter() - t, time.process_time() - c
print(f"wall {wall / n * 1000:.1f} ms/op, CPU {cpu / n * 1000:.1f} ms/op")
