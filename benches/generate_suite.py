#!/usr/bin/env python3
"""Generate a large synthetic suite and matching answers for the `goldgate score` benchmark.

    python3 benches/generate_suite.py OUT_DIR [--samples 10000] [--requirements 8] [--seed 7]
                                             [--repeats 1] [--kind extraction|tuples]

Writes OUT_DIR/suite/samples.jsonl (extraction samples, ~8 gold requirements each, with a
conversation) and OUT_DIR/answers.jsonl (an outputs file: per sample, the gold requirements
with realistic noise: reworded titles, dropped and invented requirements, confidences, the
occasional fenced or broken answer). With --repeats N, every sample has N answers, each
with its own noise, told apart by `repeat` (the suite and the answers of repeat 0 are those
of a single-repeat file). Deterministic for a given seed; standard library only.

With --kind tuples: aspect-sentiment samples of a two-stage task with chain-of-thought
checks (OUT_DIR/suite/suite.toml defines it), ~6 gold tuples each, and answers with a
thought, first-stage and final tuples (partial spans, flipped and synonym labels, missed
and invented aspects, label conflicts, review actions, the occasional broken answer).
"""
import argparse
import json
import os
import random

ACTORS = ["customer", "admin", "system", "clerk", "manager", "driver", "patient", "user"]
VERBS = ["track", "export", "approve", "schedule", "notify", "archive", "search", "review", "cancel", "refund"]
OBJECTS = ["orders", "invoices", "appointments", "shipments", "payroll runs", "reports", "accounts", "tickets", "devices", "claims"]
TYPES = ["functional", "non-functional", "security", "data", "interface", "constraint"]
DOMAINS = ["e-commerce", "healthcare", "banking", "logistics", "hr", "iot"]


def requirement(rng, i, n_messages):
    verb, obj, actor = rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(ACTORS)
    return {
        "id": f"REQ-{i + 1:03d}",
        "title": f"{verb.capitalize()} {obj}",
        "type": rng.choice(TYPES),
        "actor": actor,
        "action": f"{verb} {obj} from the {rng.choice(['web', 'mobile', 'back office'])} portal",
        "condition": None,
        "acceptance_criteria": [f"The {actor} can {verb} {obj} in under {rng.randint(2, 9)} steps",
                                f"Every {verb} of {obj} is logged with a timestamp"],
        "priority": rng.choice(["must", "should", "could"]),
        "source_messages": sorted(rng.sample(range(n_messages), 2)),
        "rationale": "Stated by the stakeholder.",
    }


def noisy_answer(rng, gold):
    pred = []
    for r in gold:
        if rng.random() < 0.12:
            continue  # missed
        p = dict(r)
        if rng.random() < 0.3:
            p["title"] = p["title"] + " quickly"
        p["confidence"] = round(rng.uniform(0.4, 1.0), 2)
        pred.append(p)
    for _ in range(rng.randint(0, 2)):  # invented
        p = requirement(rng, len(pred) + 50, 6)
        p["confidence"] = round(rng.uniform(0.1, 0.7), 2)
        pred.append(p)
    text = json.dumps({"requirements": pred})
    roll = rng.random()
    if roll < 0.05:
        return "Here you go:\n```json\n" + text + "\n```"
    if roll < 0.07:
        return text[: len(text) // 2]
    return text


TASK = """name = "bench-tuples"

[tasks.absa]
fields = [
  { name = "aspect_term", role = "span" },
  { name = "polarity", role = "label", values = ["positive", "negative", "neutral"], synonyms = { positive = ["pos"], negative = ["neg"] } },
]
stage1_paths = ["/stage1_tuples"]
cot = { enabled = true }
"""
ASPECTS = ["battery life", "screen", "keyboard", "price", "delivery", "customer service", "camera",
           "speakers", "build quality", "software updates", "the staff", "room service", "breakfast"]
OPINIONS = {"positive": ["excellent", "great", "solid"], "negative": ["awful", "slow", "flimsy"],
            "neutral": ["average", "as expected", "fine"]}


def tuples_sample(rng, s, n):
    aspects = rng.sample(ASPECTS, n)
    gold, clauses = [], []
    for a in aspects:
        polarity = rng.choice(list(OPINIONS))
        gold.append({"aspect_term": a, "polarity": polarity})
        clauses.append(f"the {a} is {rng.choice(OPINIONS[polarity])}")
    text = ("Honestly, " + ", and ".join(clauses) + ".").replace("the the", "the")
    sample = {"id": f"bench-{s:05d}", "kind": "tuples", "task": "absa", "domain": rng.choice(DOMAINS),
              "difficulty": rng.choice(["easy", "medium", "hard"]), "text": text,
              "tags": rng.sample(["explicit", "mixed", "long", "short"], 2), "labels": {"tuples": gold}}
    return sample, gold


def tuples_answer(rng, gold):
    stage1 = []
    for g in gold:
        if rng.random() < 0.1:
            continue  # missed
        t = {"aspect_term": g["aspect_term"], "polarity": g["polarity"], "confidence": round(rng.uniform(0.4, 1.0), 2)}
        roll = rng.random()
        if roll < 0.1:
            t["aspect_term"] = t["aspect_term"].split()[-1]  # a partial span
        elif roll < 0.2:
            t["polarity"] = rng.choice(["positive", "negative", "neutral"])
        elif roll < 0.3:
            t["polarity"] = {"positive": "pos", "negative": "neg"}.get(t["polarity"], t["polarity"])
        stage1.append(t)
    if rng.random() < 0.3:
        stage1.append({"aspect_term": rng.choice(ASPECTS), "polarity": "neutral", "confidence": 0.3})
    final = [dict(t) for t in stage1 if rng.random() > 0.05]
    actions = []
    if rng.random() < 0.3 and final:
        final[0] = dict(final[0], polarity=rng.choice(["positive", "negative"]))
        actions.append({"action": "relabel", "aspect_term": final[0]["aspect_term"]})
    if rng.random() < 0.1 and final:
        final.append(dict(final[0], polarity="neutral", confidence=0.2, drop_reason="conflict"))
    thought = "; ".join(f"{t['aspect_term']} is {t['polarity']}" for t in final if rng.random() > 0.05)
    body = json.dumps({"stage1_tuples": stage1, "final_tuples": final, "analysis_flags": {"review_actions": actions}})
    roll = rng.random()
    if roll < 0.03:
        return body[: len(body) // 2]
    if roll < 0.06:
        return "```json\n" + body + "\n```"
    return f"<thought>{thought}</thought>\n{body}"


def main_tuples(args, rng, more):
    with open(os.path.join(args.out, "suite", "suite.toml"), "w") as toml:
        toml.write(TASK)
    with open(os.path.join(args.out, "suite", "samples.jsonl"), "w") as suite, \
         open(os.path.join(args.out, "answers.jsonl"), "w") as answers:
        for s in range(args.samples):
            sample, gold = tuples_sample(rng, s, rng.randint(3, 8))
            suite.write(json.dumps(sample) + "\n")
            if args.repeats == 1:
                answers.write(json.dumps({"id": sample["id"], "output": tuples_answer(rng, gold)}) + "\n")
                continue
            for r in range(args.repeats):
                output = tuples_answer(rng if r == 0 else more, gold)
                answers.write(json.dumps({"id": sample["id"], "repeat": r, "output": output}) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=10000)
    ap.add_argument("--requirements", type=int, default=8)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--kind", choices=["extraction", "tuples"], default="extraction")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    # The answers of repeats 1… come from a stream of their own, so the suite and repeat 0
    # do not depend on the number of repeats.
    more = random.Random(args.seed + 1)
    os.makedirs(os.path.join(args.out, "suite"), exist_ok=True)
    if args.kind == "tuples":
        return main_tuples(args, rng, more)
    with open(os.path.join(args.out, "suite", "samples.jsonl"), "w") as suite, \
         open(os.path.join(args.out, "answers.jsonl"), "w") as answers:
        for s in range(args.samples):
            n_messages = 6
            conversation = [{"role": "user" if m % 2 == 0 else "analyst",
                             "content": f"The {rng.choice(ACTORS)} needs to {rng.choice(VERBS)} {rng.choice(OBJECTS)} every day."}
                            for m in range(n_messages)]
            gold = [requirement(rng, i, n_messages) for i in range(args.requirements)]
            sample = {"id": f"bench-{s:05d}", "kind": "extraction", "domain": rng.choice(DOMAINS),
                      "difficulty": rng.choice(["easy", "medium", "hard"]), "conversation": conversation,
                      "labels": {"requirements": gold}}
            suite.write(json.dumps(sample) + "\n")
            if args.repeats == 1:
                answers.write(json.dumps({"id": sample["id"], "output": noisy_answer(rng, gold)}) + "\n")
                continue
            for r in range(args.repeats):
                output = noisy_answer(rng if r == 0 else more, gold)
                answers.write(json.dumps({"id": sample["id"], "repeat": r, "output": output}) + "\n")


if __name__ == "__main__":
    main()
