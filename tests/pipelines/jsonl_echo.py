"""A jsonl pipeline: one request line in, one {"id", "output"} line out.

Its answer lists the keys of the request it got. With an argument, it exits (without
answering) when it reads the request of that sample id.
"""
import json
import sys

die_on = sys.argv[1] if len(sys.argv) > 1 else None
for line in sys.stdin:
    request = json.loads(line)
    if request["id"] == die_on:
        sys.exit(1)
    answer = {"marks": [], "keys": sorted(request)}
    sys.stdout.write(json.dumps({"id": request["id"], "output": answer}) + "\n")
    sys.stdout.flush()
