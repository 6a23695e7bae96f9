"""A jsonl pipeline that answers each sample with a response line of a different wrong
shape (by the sample's id), and s-5 correctly:

  s-0 not JSON, s-1 no id, s-2 no output, s-3 a repeat that is not a number,
  s-4 an id nobody asked for, s-5 a good answer carrying its repeat.
"""
import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    sid = request["id"]
    good = {"marks": [], "got_repeat": request.get("repeat")}
    if sid == "s-0":
        out = "Sure! Here is the answer you wanted."
    elif sid == "s-1":
        out = json.dumps({"output": good})
    elif sid == "s-2":
        out = json.dumps({"id": sid, "repeat": request["repeat"]})
    elif sid == "s-3":
        out = json.dumps({"id": sid, "repeat": "zero", "output": good})
    elif sid == "s-4":
        out = json.dumps({"id": "S-4-mangled", "output": good})
    else:
        out = json.dumps({"id": sid, "repeat": request["repeat"], "output": good})
    sys.stdout.write(out + "\n")
    sys.stdout.flush()
