"""A jsonl pipeline that crashes.

  --poison ID        exit (code 1, no answer) whenever it reads the request of sample ID;
  --delay SECONDS    wait this long before each answer (so requests pile up in flight);
  --crash-once FILE  the first process (FILE does not exist yet) reads --hold requests
                     without answering, creates FILE and exits; later ones answer.
"""
import argparse
import json
import os
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--poison")
parser.add_argument("--delay", type=float, default=0.0)
parser.add_argument("--crash-once")
parser.add_argument("--hold", type=int, default=1)
args = parser.parse_args()

first = args.crash_once is not None and not os.path.exists(args.crash_once)
read = 0
for line in sys.stdin:
    request = json.loads(line)
    read += 1
    if first:
        if read >= args.hold:
            open(args.crash_once, "w").close()
            sys.exit(1)
        continue
    if request["id"] == args.poison:
        sys.exit(1)
    time.sleep(args.delay)
    output = {"marks": [], "pid": os.getpid()}
    sys.stdout.write(json.dumps({"id": request["id"], "repeat": request["repeat"], "output": output}) + "\n")
    sys.stdout.flush()
