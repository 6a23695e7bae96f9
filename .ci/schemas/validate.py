"""Python's jsonschema and check-jsonschema on the corpus: every schema of schemas/ must
load in both and judge every instance of tests/fixtures/schemas/<schema>.jsonl as it is
labelled. Prints one line per disagreement; exits 1 when there is one. Run by
scripts/schema-validators.sh, in a virtual environment holding both.

    python validate.py ROOT
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema

root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
schemas = root / "schemas"
corpus = root / "tests" / "fixtures" / "schemas"
check_jsonschema = Path(sys.executable).with_name("check-jsonschema")
failures = 0
checked = 0


def say(line):
    global failures
    print(line)
    failures += 1


for path in sorted(schemas.glob("*.schema.json")):
    stem = path.name[: -len(".schema.json")]
    schema = json.loads(path.read_text(encoding="utf-8"))
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
    except Exception as e:  # a schema that does not load is the failure reported
        say(f"jsonschema: schemas/{path.name}: does not load: {e}")
        continue
    # Lines end at "\n" only: an instance may hold U+2028 or U+0085 as they are.
    text = (corpus / f"{stem}.jsonl").read_text(encoding="utf-8")
    lines = [json.loads(l) for l in text.split("\n") if l.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, case in enumerate(lines):
            checked += 1
            try:
                errors = [e.message for e in validator.iter_errors(case["instance"])]
            except Exception as e:  # e.g. a pattern Python's re cannot compile
                say(f"jsonschema: schemas/{path.name}, {case['name']}: {type(e).__name__}: {e}")
                continue
            if (not errors) != case["valid"]:
                why = "" if not errors else f": {errors[0]}"
                say(f"jsonschema: schemas/{path.name}, {case['name']}: labelled {'valid' if case['valid'] else 'invalid'}, jsonschema says {'invalid' if errors else 'valid'}{why}")
            file = Path(tmp) / f"{i}.json"
            file.write_text(json.dumps(case["instance"]), encoding="utf-8")
            files.append(str(file))
        run = subprocess.run(
            [str(check_jsonschema), "--schemafile", str(path), "-o", "JSON", *files],
            capture_output=True,
            text=True,
        )
        try:
            report = json.loads(run.stdout)
        except json.JSONDecodeError:
            say(f"check-jsonschema: schemas/{path.name}: no report (exit {run.returncode}): {run.stderr.strip()[-500:]}")
            continue
        if report.get("parse_errors"):
            say(f"check-jsonschema: schemas/{path.name}: could not read {report['parse_errors']}")
        invalid = {Path(e["filename"]).name for e in report.get("errors", [])}
        for i, case in enumerate(lines):
            ok = f"{i}.json" not in invalid
            if ok != case["valid"]:
                say(f"check-jsonschema: schemas/{path.name}, {case['name']}: labelled {'valid' if case['valid'] else 'invalid'}, check-jsonschema says {'valid' if ok else 'invalid'}")

print(f"jsonschema and check-jsonschema: {checked} instances checked, {failures} disagreements")
sys.exit(0 if failures == 0 and checked > 0 else 1)
