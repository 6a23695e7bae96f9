"""A jsonl pipeline that answers out of order: it collects BATCH requests (argv[1]), then
answers them in reverse, each response carrying the request's id and repeat, and an output
saying which repeat it answered.
"""
import json
import sys

batch = int(sys.argv[1])
held = []
for line in sys.stdin:
    held.append(json.loads(line))
    if len(held) < batch:
        continue
    for request in reversed(held):
        output = {"marks": [], "answered_repeat": request["repeat"]}
        response = {"id": request["id"], "repeat": request["repeat"], "output": output}
        sys.stdout.write(json.dumps(response) + "\n")
    sys.stdout.flush()
    held = []
