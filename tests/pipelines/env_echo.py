"""A oneshot pipeline that echoes what it was given: its answer carries its whole
environment (under `env`), and marks that list every variable whose name
contains TOKEN, so a leaked token would reach diffs, reports and comments. It also writes
that list to stderr, and fails (exit 3) on samples whose id ends in 3.
"""
import json
import os
import sys

request = json.load(sys.stdin)
env = dict(os.environ)
leak = " ".join(f"{k}={v}" for k, v in sorted(env.items()) if "TOKEN" in k)
sys.stderr.write(f"tokens I can see: {leak}\n")
if request["id"].endswith("3"):
    sys.exit(3)
answer = {
    "marks": [f"Leak {leak}", f"read {leak}"],
    "env": env,
}
print(json.dumps(answer))
