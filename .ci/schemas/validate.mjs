// ajv (JSON Schema 2020-12) on the corpus: every schema of schemas/ must compile in strict
// mode and judge every instance of tests/fixtures/schemas/<schema>.jsonl as it is labelled.
// Prints one line per disagreement; exits 1 when there is one. Run by
// scripts/schema-validators.sh.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";

const root = process.argv[2] ?? ".";
const schemas = join(root, "schemas");
const corpus = join(root, "tests/fixtures/schemas");
let failures = 0;
let checked = 0;
for (const file of readdirSync(schemas).filter((f) => f.endsWith(".schema.json")).sort()) {
  const stem = file.replace(/\.schema\.json$/, "");
  // ajv's strict mode (unknown keywords and formats, ignored or invalid ones, are errors),
  // but for its style rules on types: JSON Schema allows a keyword without a `type` beside
  // it (a condition's `properties`) and a list of types.
  const ajv = new Ajv2020({ allErrors: true, strictTypes: false, allowUnionTypes: true });
  let validate;
  try {
    validate = ajv.compile(JSON.parse(readFileSync(join(schemas, file), "utf8")));
  } catch (e) {
    console.log(`schemas/${file}: does not compile: ${e.message}`);
    failures++;
    continue;
  }
  const lines = readFileSync(join(corpus, `${stem}.jsonl`), "utf8").split("\n").filter((l) => l.trim());
  for (const line of lines) {
    const { name, valid, instance } = JSON.parse(line);
    const ok = validate(instance);
    checked++;
    if (ok !== valid) {
      const why = ok ? "" : `: ${ajv.errorsText(validate.errors)}`;
      console.log(`ajv: schemas/${file}, ${name}: labelled ${valid ? "valid" : "invalid"}, ajv says ${ok ? "valid" : "invalid"}${why}`);
      failures++;
    }
  }
}
console.log(`ajv: ${checked} instances checked, ${failures} disagreements`);
process.exit(failures === 0 && checked > 0 ? 0 : 1);
