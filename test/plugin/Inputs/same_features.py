# same_features.py A.json B.json — exit 0 when two features documents are the
# same apart from parse.seconds (a timing); else print the first difference.
import json, sys

a, b = [json.load(open(f)) for f in sys.argv[1:3]]
for d in (a, b):
    d["parse"].pop("seconds", None)
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            sys.exit("%s and %s differ at %r:\n%s\n%s" % (sys.argv[1], sys.argv[2], k,
                     json.dumps(a.get(k))[:1500], json.dumps(b.get(k))[:1500]))
