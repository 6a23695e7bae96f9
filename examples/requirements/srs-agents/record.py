#!/usr/bin/env python3
"""Record the example project's srs-agents runs with a scripted OpenAI-compatible server.

    python3 examples/requirements/srs-agents/record.py [path/to/goldgate]

starts a server on 127.0.0.1 that answers the four agents of the srs-agents pipeline
(ReqParse, ReqExplore, ReqClarify, DocGenerate) and the LLM judge with hand-written answers
for the four e2e samples of the example suite, then runs

    goldgate run --config srs-agents.toml --suite suite/e2e \
                 --output answers/srs-agents.jsonl --no-cache --jobs 1
    goldgate run --config srs-agents/candidate.toml --suite suite/e2e \
                 --output answers/srs-agents-candidate.jsonl --no-cache --jobs 1

and stops the server. The answers are scripted, not a real model's: they are what a good
model would answer for these samples, written by hand so that the recording shows every
rule of the pipeline (refinements, a suggestion, freezes, removals, items an agent may not
touch) and a judge whose scores reflect the documents. The candidate configuration changes
DocGenerate's system prompt ("keep the document short"); the scripted DocGenerate then
leaves the non-functional requirements, constraints and suggestions out of section 3, and
the judge scores those documents lower.

The server tells the agents apart by their system prompts and the samples by their input;
it keeps no state, so the answers do not depend on the order of the calls. Only the
standard library is used.
"""

import json
import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent
PORT = 18731  # the base_url of ../srs-agents.toml and candidate.toml

# --------------------------------------------------------------------------------------
# The samples: how to recognise each one, and what each agent answers for it.
# --------------------------------------------------------------------------------------

SAMPLES = {
    "e2e-001": {
        "marker": "smart thermostat app",
        "title": "Smart Thermostat App",
        "reqparse": [
            {"id": "FR-01", "content": "The user shall set heating schedules for the thermostat from the phone app."},
            {"id": "FR-02", "content": "The thermostat shall report the room temperature every minute."},
            {"id": "FR-03", "content": "The user shall choose a temperature range for alerts in the app."},
            {"id": "FR-04", "content": "The system shall alert the user when the room temperature leaves the chosen range."},
            {"id": "NFR-01", "content": "The system shall deliver out-of-range alerts quickly."},
        ],
        "explore": {
            1: [
                {"id": "NFR-01", "content": "The system shall send an out-of-range alert within 2 minutes of the room temperature leaving the chosen range."},
                {"id": "SUG-01", "content": "The system shall flag the thermostat as offline when no reading has arrived for 3 minutes."},
            ],
            2: [
                {"id": "FR-03", "content": "The user shall set the lower and upper temperature of the alert range in the app."},
                # FR-02 was frozen in round 1: goldgate discards this item.
                {"id": "FR-02", "content": "The thermostat shall report the room temperature every 60 seconds over Wi-Fi."},
            ],
        },
        "clarify": {
            "The user shall set heating schedules for the thermostat from the phone app.": (2, "Matches FR-01 of the reference."),
            "The thermostat shall report the room temperature every minute.": (2, "Matches FR-02 of the reference."),
            "The user shall choose a temperature range for alerts in the app.": (1, "An acceptance criterion of the reference's FR-03 rather than a requirement of its own."),
            "The system shall alert the user when the room temperature leaves the chosen range.": (2, "Matches FR-03 of the reference."),
            "The system shall send an out-of-range alert within 2 minutes of the room temperature leaving the chosen range.": (1, "The 2-minute bound is an acceptance criterion of the reference's FR-03."),
            "The system shall flag the thermostat as offline when no reading has arrived for 3 minutes.": (1, "The reference flags missed readings after 3 minutes as a criterion of FR-02."),
            "The user shall set the lower and upper temperature of the alert range in the app.": (1, "Part of the reference's FR-03; the accepted limits are still TBD there."),
        },
        "intro": {
            "purpose": "This SRS specifies the heating schedules, temperature reporting and out-of-range alerts of a smart thermostat and its phone app, for the app and firmware developers and the test team.",
            "scope": "The product is a phone app paired with a connected thermostat. Users set heating schedules from their phone, the thermostat reports the room temperature every minute, and the app alerts users when the temperature leaves a range they choose.",
            "definitions": ["**Schedule**: the heating plan of a thermostat.", "**Reading**: one room temperature measurement sent by the thermostat.", "**Alert range**: the lower and upper temperature a user chooses for alerts."],
            "perspective": "A new, self-contained product: the app and the thermostat exchange schedules, readings and alert settings over the home network and the internet.",
            "users": "Household members with ordinary smartphone skills, who expect alerts to reach them when they are away from home.",
            "constraints": "The input names no platform or regulatory constraint. The supported phone platforms and the alert channel are TBD.",
            "assumptions": "The thermostat has a working internet connection most of the time.",
        },
        "judge": {
            "main": {"coverage": 1.0, "completeness": 0.85, "consistency": 1.0, "testability": 0.9, "clarity": 0.9, "traceability": 0.85, "scope_discipline": 0.95,
                     "by_category": {"functional": 1.0, "non_functional": None, "constraints": None}},
            "candidate": {"coverage": 1.0, "completeness": 0.75, "consistency": 1.0, "testability": 0.75, "clarity": 0.9, "traceability": 0.85, "scope_discipline": 1.0,
                          "by_category": {"functional": 1.0, "non_functional": None, "constraints": None}},
        },
    },
    "e2e-002": {
        "marker": "paper drug charts",
        "title": "Ward 7 Bedside Medication Administration",
        "reqparse": [
            {"id": "FR-01", "content": "The nurse shall scan the patient's wristband and the medicine barcode before each dose.", "source_messages": [1]},
            {"id": "FR-02", "content": "The system shall check the patient, drug and dose of each scan against the prescription.", "source_messages": [1]},
            {"id": "FR-03", "content": "The system shall block a dose when the scanned wristband belongs to another patient, with no override.", "source_messages": [3]},
            {"id": "FR-04", "content": "The system shall allow a drug or dose mismatch to proceed only after a second registered nurse scans their badge and a reason is chosen from a list.", "source_messages": [3]},
            {"id": "FR-05", "content": "The nurse shall record each dose as given, refused or withheld, with the time and the nurse's identity.", "source_messages": [5]},
            {"id": "FR-06", "content": "The system shall mark a dose overdue 30 minutes after its scheduled time.", "source_messages": [5]},
            {"id": "FR-07", "content": "The system shall show the doses due for each patient.", "source_messages": [5]},
            {"id": "NFR-01", "content": "The handheld shall keep working without Wi-Fi.", "source_messages": [7]},
            {"id": "CON-01", "content": "The system shall run on the Zebra handhelds the Trust already uses for blood sampling.", "source_messages": [9]},
            {"id": "CON-02", "content": "The system shall take prescriptions from the pharmacy system.", "source_messages": [9]},
        ],
        "explore": {
            1: [
                {"id": "FR-06", "content": "The system shall mark a routine dose overdue 60 minutes after its scheduled time and a time-critical dose overdue 30 minutes after it.", "source_messages": [5]},
                {"id": "NFR-01", "content": "The handheld shall keep scanning, checking and recording without Wi-Fi and synchronise the records once back in range.", "source_messages": [6, 7]},
                {"id": "NFR-02", "content": "The system shall report to IT when the new Wi-Fi access points in bays 4 to 6 are installed.", "source_messages": [7]},
            ],
            2: [
                {"id": "FR-07", "content": "The system shall show each patient's due and overdue doses on the handheld.", "source_messages": [5]},
                {"id": "CON-02", "content": "The system shall take prescriptions from the pharmacy system, so that no drug is typed in on the ward.", "source_messages": [9]},
                {"id": "NFR-03", "content": "The system shall log every override with both nurses' badge numbers and the reason chosen.", "source_messages": [3]},
            ],
        },
        "clarify": {
            "The nurse shall scan the patient's wristband and the medicine barcode before each dose.": (2, "Matches FR-01 of the reference."),
            "The system shall check the patient, drug and dose of each scan against the prescription.": (1, "Part of the reference's FR-01, stated as a separate step."),
            "The system shall block a dose when the scanned wristband belongs to another patient, with no override.": (2, "Matches the wrong-patient block of FR-02."),
            "The system shall allow a drug or dose mismatch to proceed only after a second registered nurse scans their badge and a reason is chosen from a list.": (2, "Matches the override rule of FR-02."),
            "The nurse shall record each dose as given, refused or withheld, with the time and the nurse's identity.": (2, "Matches FR-03 of the reference."),
            "The system shall mark a routine dose overdue 60 minutes after its scheduled time and a time-critical dose overdue 30 minutes after it.": (2, "Matches the overdue limits of FR-04, with the nurse's correction."),
            "The system shall show the doses due for each patient.": (1, "Part of FR-04: overdue doses are missing."),
            "The handheld shall keep scanning, checking and recording without Wi-Fi and synchronise the records once back in range.": (2, "Matches NFR-01 of the reference."),
            "The system shall report to IT when the new Wi-Fi access points in bays 4 to 6 are installed.": (-2, "Out of scope: the access points are an IT project the nurse mentioned in passing, not a need of the app."),
            "The system shall run on the Zebra handhelds the Trust already uses for blood sampling.": (2, "Matches CON-01 of the reference."),
            "The system shall take prescriptions from the pharmacy system.": (1, "CON-02 also rules out typing drugs in on the ward."),
            "The system shall show each patient's due and overdue doses on the handheld.": (2, "Matches the display part of FR-04."),
            "The system shall take prescriptions from the pharmacy system, so that no drug is typed in on the ward.": (2, "Matches CON-02 of the reference."),
            "The system shall log every override with both nurses' badge numbers and the reason chosen.": (0, "Sensible, but the reference only asks for the co-signature and the reason."),
        },
        "intro": {
            "purpose": "This SRS specifies a bedside medication administration app that replaces the paper drug charts on Ward 7, for the clinical systems team, the developers and the nurses who take part in acceptance testing.",
            "scope": "The app runs on handheld devices during medicine rounds (8, 12, 6 and 10 o'clock and in between). It checks patient, drug and dose by barcode before each dose, records the outcome of each dose and shows due and overdue doses. Prescribing stays in the pharmacy system.",
            "definitions": ["**Mismatch**: a scan where patient, drug or dose differ from the prescription.", "**Co-signature**: a second registered nurse confirming an override by scanning their badge.", "**Time-critical medicine**: e.g. Parkinson's drugs and insulin.", "**RN**: registered nurse."],
            "perspective": "A new app beside the hospital's pharmacy system, from which it takes the prescriptions, running on the Trust's existing handhelds.",
            "users": "Registered nurses on a busy ward, working at the bedside with little time for the device.",
            "constraints": "No budget for new hardware: the app runs on the Zebra handhelds bought for blood sampling. Prescriptions come from the pharmacy system. Wi-Fi is unreliable in bays 4 to 6.",
            "assumptions": "Wristbands and medicine packets carry readable barcodes.",
        },
        "judge": {
            "main": {"coverage": 0.93, "completeness": 0.8, "consistency": 0.95, "testability": 0.75, "clarity": 0.85, "traceability": 0.9, "scope_discipline": 0.85,
                     "by_category": {"functional": 0.875, "non_functional": 1.0, "constraints": 1.0}},
            "candidate": {"coverage": 0.64, "completeness": 0.5, "consistency": 0.9, "testability": 0.7, "clarity": 0.85, "traceability": 0.6, "scope_discipline": 0.9,
                          "by_category": {"functional": 0.875, "non_functional": 0.0, "constraints": 0.5}},
        },
    },
    "e2e-003": {
        "marker": "clipboards for proof of delivery",
        "title": "Driver Proof-of-Delivery App",
        "reqparse": [
            {"id": "FR-01", "content": "The driver shall capture the recipient's signature on the phone screen when a parcel is handed over.", "source_messages": [0, 2]},
            {"id": "FR-02", "content": "The driver shall photograph a parcel left in a safe place, with the GPS position and the time on the photo.", "source_messages": [2]},
            {"id": "FR-03", "content": "The system shall text the customer a one-hour arrival window on the morning of delivery.", "source_messages": [4]},
            {"id": "FR-04", "content": "The system shall text the customer again when the driver is two stops away.", "source_messages": [4]},
            {"id": "FR-05", "content": "The dispatcher shall see each van's progress on a map.", "source_messages": [4]},
            {"id": "NFR-01", "content": "The driver shall be able to complete a delivery with no mobile signal.", "source_messages": [6]},
            {"id": "CON-01", "content": "The system shall delete safe-place photos 90 days after the delivery.", "source_messages": [6]},
            {"id": "CON-02", "content": "The system shall keep signatures for one year.", "source_messages": [6]},
            {"id": "CON-03", "content": "The app shall run on drivers' own Android 10 or later phones enrolled in the company's device management.", "source_messages": [8]},
        ],
        "explore": {
            1: [
                {"id": "FR-05", "content": "The dispatcher shall see each van's progress on a map refreshed at least every 2 minutes.", "source_messages": [4]},
                {"id": "NFR-01", "content": "The driver shall be able to complete a delivery with no mobile signal, its proof of delivery uploading when coverage returns.", "source_messages": [6]},
            ],
            2: [
                {"id": "FR-04", "content": "The system shall text the customer when the driver completes the stop two before the customer's.", "source_messages": [4]},
                # CON-02 was removed in round 1: goldgate discards this item.
                {"id": "CON-02", "content": "The system shall keep signatures for one year for disputes.", "source_messages": [6]},
            ],
        },
        "clarify": {
            "The driver shall capture the recipient's signature on the phone screen when a parcel is handed over.": (2, "Matches FR-01 of the reference."),
            "The driver shall photograph a parcel left in a safe place, with the GPS position and the time on the photo.": (2, "Matches FR-02 of the reference."),
            "The system shall text the customer a one-hour arrival window on the morning of delivery.": (1, "The first half of the reference's FR-03."),
            "The system shall text the customer again when the driver is two stops away.": (1, "The second half of the reference's FR-03."),
            "The dispatcher shall see each van's progress on a map.": (1, "FR-04 of the reference also bounds the refresh to 2 minutes."),
            "The dispatcher shall see each van's progress on a map refreshed at least every 2 minutes.": (2, "Matches FR-04 of the reference."),
            "The driver shall be able to complete a delivery with no mobile signal.": (1, "NFR-01 also uploads the proof of delivery later."),
            "The driver shall be able to complete a delivery with no mobile signal, its proof of delivery uploading when coverage returns.": (2, "Matches NFR-01 of the reference."),
            "The system shall delete safe-place photos 90 days after the delivery.": (2, "Matches CON-01 of the reference."),
            "The system shall keep signatures for one year.": (-2, "The reference leaves signature retention open until legal confirms it (msg 6)."),
            "The app shall run on drivers' own Android 10 or later phones enrolled in the company's device management.": (2, "Matches CON-02 of the reference."),
            "The system shall text the customer when the driver completes the stop two before the customer's.": (1, "The second half of the reference's FR-03, stated testably."),
        },
        "intro": {
            "purpose": "This SRS specifies a phone app that replaces the drivers' paper proof-of-delivery sheets, with the customer text messages and the dispatchers' van map, for the development team and the operations manager who signs off the release.",
            "scope": "Proof of delivery (signature or safe-place photo), arrival texts to customers and a progress map for dispatch. Route planning and dispute handling are out of scope.",
            "definitions": ["**POD**: proof of delivery, a signature or a safe-place photo.", "**Safe place**: where a driver leaves a parcel when nobody is in.", "**MDM**: mobile device management.", "**Stop**: one delivery address on a route."],
            "perspective": "The app replaces clipboards on the drivers' own phones, sends texts through an SMS gateway and feeds a map view for the dispatchers.",
            "users": "Drivers working against the clock, often one-handed; dispatchers at a desk in the depot; customers, who only receive texts.",
            "constraints": "Drivers' own MDM-enrolled Android phones; legal limits the retention of safe-place photos. Signature retention is TBD until legal confirms it.",
            "assumptions": "Each day's stops are available from the existing route plan.",
        },
        "judge": {
            "main": {"coverage": 1.0, "completeness": 0.85, "consistency": 1.0, "testability": 0.85, "clarity": 0.9, "traceability": 0.9, "scope_discipline": 1.0,
                     "by_category": {"functional": 1.0, "non_functional": 1.0, "constraints": 1.0}},
            "candidate": {"coverage": 0.71, "completeness": 0.55, "consistency": 1.0, "testability": 0.8, "clarity": 0.9, "traceability": 0.65, "scope_discipline": 1.0,
                          "by_category": {"functional": 1.0, "non_functional": 0.0, "constraints": 0.5}},
        },
    },
    "e2e-004": {
        "marker": "450-person engineering firm",
        "title": "Employee Leave Management System",
        "reqparse": [
            {"id": "FR-01", "content": "The employee shall request annual leave in the web portal."},
            {"id": "FR-02", "content": "The employee shall see the remaining leave balance before submitting a request."},
            {"id": "FR-03", "content": "The line manager shall approve or reject leave requests from their team."},
            {"id": "FR-04", "content": "The system shall pass a leave request to HR when the line manager has not acted on it within 3 working days."},
            {"id": "FR-05", "content": "The system shall accrue leave entitlement monthly, 25 days a year for UK staff and 26 days a year for staff in Poland."},
            {"id": "FR-06", "content": "The system shall carry over up to 5 unused days into the next leave year."},
            {"id": "FR-07", "content": "The employee shall report sickness and upload a sick note in the portal."},
            {"id": "FR-08", "content": "The system shall produce a monthly absence report per department as a CSV file by the 3rd working day of the following month."},
            {"id": "NFR-01", "content": "The system shall allow only HR users to open sick notes."},
            {"id": "CON-01", "content": "The system shall sign users in with their existing Microsoft 365 accounts."},
            {"id": "CON-02", "content": "The system shall be live before the new leave year starts on 1 April."},
        ],
        "explore": {
            1: [
                {"id": "NFR-01", "content": "The system shall allow only HR users to open sick notes and log every opening with the user and the time."},
                {"id": "SUG-01", "content": "The system shall notify the employee when a leave request is approved or rejected."},
            ],
            2: [
                {"id": "FR-05", "content": "The system shall accrue leave entitlement each month at 25/12 days for UK staff and 26/12 days for staff in Poland."},
                {"id": "FR-06", "content": "The system shall carry over at most 5 unused days into the next leave year and let the rest lapse."},
            ],
        },
        "clarify": {
            "The employee shall request annual leave in the web portal.": (1, "FR-01 of the reference also shows the balance before submitting."),
            "The employee shall see the remaining leave balance before submitting a request.": (1, "The balance half of the reference's FR-01."),
            "The line manager shall approve or reject leave requests from their team.": (2, "Matches FR-02 of the reference."),
            "The system shall pass a leave request to HR when the line manager has not acted on it within 3 working days.": (2, "Matches FR-03 of the reference."),
            "The system shall accrue leave entitlement monthly, 25 days a year for UK staff and 26 days a year for staff in Poland.": (1, "The accrual half of FR-04; the monthly amounts are implicit."),
            "The system shall carry over up to 5 unused days into the next leave year.": (1, "The carry-over half of FR-04."),
            "The employee shall report sickness and upload a sick note in the portal.": (2, "Matches FR-05 of the reference."),
            "The system shall produce a monthly absence report per department as a CSV file by the 3rd working day of the following month.": (2, "Matches FR-06 of the reference."),
            "The system shall allow only HR users to open sick notes.": (1, "NFR-01 also logs every access."),
            "The system shall allow only HR users to open sick notes and log every opening with the user and the time.": (2, "Matches NFR-01 of the reference."),
            "The system shall sign users in with their existing Microsoft 365 accounts.": (2, "Matches CON-01 of the reference."),
            "The system shall be live before the new leave year starts on 1 April.": (-2, "The reference keeps the go-live date in the project plan: it is not a software requirement."),
            "The system shall notify the employee when a leave request is approved or rejected.": (1, "An acceptance criterion of the reference's FR-02."),
            "The system shall accrue leave entitlement each month at 25/12 days for UK staff and 26/12 days for staff in Poland.": (2, "Matches the accrual of FR-04."),
            "The system shall carry over at most 5 unused days into the next leave year and let the rest lapse.": (2, "Matches the carry-over of FR-04."),
        },
        "intro": {
            "purpose": "This SRS specifies a leave management system that replaces the spreadsheet HR reconciles by hand, for the HR team, payroll, the IT team that runs Microsoft 365 and the supplier who builds it.",
            "scope": "Annual leave requests and approvals, entitlement and carry-over, sickness reporting with sick notes and a monthly absence report for payroll, for the Leeds and Gdansk offices.",
            "definitions": ["**Entitlement**: the annual leave days an employee earns in a leave year.", "**Leave year**: from 1 April to 31 March.", "**Working day**: Monday to Friday, public holidays excluded.", "**CSV**: comma-separated values."],
            "perspective": "A new web portal that signs users in through the company's Microsoft 365 tenant and hands a monthly CSV file to payroll.",
            "users": "About 450 employees in Leeds and Gdansk, their line managers and a small HR team.",
            "constraints": "Sign-in with the existing Microsoft 365 accounts; sick notes are health data. The 1 April go-live is a project milestone kept in the project plan.",
            "assumptions": "Every employee has a Microsoft 365 account and a line manager recorded in it.",
        },
        "judge": {
            "main": {"coverage": 1.0, "completeness": 0.8, "consistency": 0.95, "testability": 0.8, "clarity": 0.85, "traceability": 0.85, "scope_discipline": 0.95,
                     "by_category": {"functional": 1.0, "non_functional": 1.0, "constraints": 1.0}},
            "candidate": {"coverage": 0.81, "completeness": 0.6, "consistency": 0.95, "testability": 0.8, "clarity": 0.85, "traceability": 0.7, "scope_discipline": 1.0,
                          "by_category": {"functional": 1.0, "non_functional": 0.0, "constraints": 0.5}},
        },
    },
}

# The candidate's DocGenerate prompt says this; the scripted DocGenerate then keeps only
# the functional requirements in section 3.
CONCISE = "Keep the document short"


def sample_of(text):
    """The sample a prompt is about: by its input, or (ReqClarify) by its reference SRS."""
    for sid, sample in SAMPLES.items():
        if sample["marker"] in text or f"Specification: {sample['title']}\n" in text:
            return sid
    raise LookupError("no example sample in this prompt")


def requirements_after(text, heading):
    """The JSON list that follows `heading` in a rendered prompt."""
    rest = text.split(heading, 1)[1]
    value, _ = json.JSONDecoder().raw_decode(rest.lstrip())
    return value


def fenced(value):
    return "```json\n" + json.dumps(value, indent=2, ensure_ascii=False) + "\n```"


def document(sid, final, concise):
    s = SAMPLES[sid]
    i = s["intro"]
    def section(prefixes):
        items = [r for r in final if r["id"].split("-")[0] in prefixes]
        return "\n\n".join(f"**{r['id']}.** {r['content']}" for r in items) or "None."
    fr = [r["id"] for r in final if r["id"].startswith(("FR-", "SUG-"))]
    lines = [
        f"# Software Requirements Specification: {s['title']}",
        "", "# 1 Introduction",
        "", "## 1.1 Purpose", "", i["purpose"],
        "", "## 1.2 Scope", "", i["scope"],
        "", "## 1.3 Definitions, acronyms and abbreviations", "",
        *[f"- {d}" for d in i["definitions"]],
        "", "## 1.4 References", "",
        "- IEEE Std 830-1998, Recommended Practice for Software Requirements Specifications.",
        f"- The stakeholder input of this specification ({sid}).",
        "", "## 1.5 Overview", "",
        "Section 2 describes the product and its users; section 3 lists the requirements by id.",
        "", "# 2 Overall description",
        "", "## 2.1 Product perspective", "", i["perspective"],
        "", "## 2.2 Product functions", "",
        f"The product functions are specified in section 3 ({', '.join(fr)}).",
        "", "## 2.3 User characteristics", "", i["users"],
        "", "## 2.4 Constraints", "", i["constraints"],
        "", "## 2.5 Assumptions and dependencies", "", i["assumptions"],
        "", "# 3 Specific requirements",
    ]
    if concise:
        lines += ["", "## 3.1 Functional requirements", "", section({"FR"}),
                  "", "Non-functional requirements and constraints are summarised in section 2.4."]
    else:
        lines += ["", "## 3.1 Functional requirements", "", section({"FR", "SUG"}),
                  "", "## 3.2 Non-functional requirements", "", section({"NFR"}),
                  "", "## 3.3 Design constraints", "", section({"CON"})]
    return "\n".join(lines) + "\n"


def answer(body):
    """The scripted answer to one chat request."""
    messages = body.get("messages", [])
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    user = next((m["content"] for m in messages if m["role"] == "user"), "")
    if system.startswith("You are a meticulous reviewer"):
        reference, generated = user.split("REFERENCE SRS:\n<<<", 1)[1].split("GENERATED SRS:\n<<<", 1)
        sid = sample_of(reference)
        variant = "main" if "## 3.3 Design constraints" in generated else "candidate"
        return json.dumps({"metrics": SAMPLES[sid]["judge"][variant]})
    sid = sample_of(user)
    s = SAMPLES[sid]
    if system.startswith("You are ReqParse"):
        return "Here are the atomic requirements:\n\n" + fenced(s["reqparse"])
    if system.startswith("You are ReqExplore"):
        round_ = int(re.search(r"This is round (\d+)", system).group(1))
        return fenced(s["explore"].get(round_, []))
    if system.startswith("You are ReqClarify"):
        items = requirements_after(user, "Requirements to score:")
        scores = []
        for item in items:
            score, reason = s["clarify"][item["content"]]
            scores.append({"id": item["id"], "score": score, "reason": reason})
        return fenced(scores)
    if system.startswith("You are DocGenerate"):
        final = requirements_after(user, "Requirements (the final list):")
        return document(sid, final, CONCISE in system)
    raise LookupError("no scripted agent for this system prompt")


def tokens(text):
    return max(1, len(text) // 4)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, content_type, payload):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            models = {"object": "list", "data": [
                {"id": "example-scripted", "object": "model", "owned_by": "goldgate-example"},
                {"id": "example-scripted-judge", "object": "model", "owned_by": "goldgate-example"},
            ]}
            self.send(200, "application/json", json.dumps(models).encode())
        else:
            self.send(404, "application/json", b'{"error": {"message": "not found"}}')

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        if not self.path.endswith("/chat/completions"):
            self.send(404, "application/json", b'{"error": {"message": "not found"}}')
            return
        try:
            content = answer(body)
        except (LookupError, KeyError, IndexError, ValueError) as e:
            message = json.dumps({"error": {"message": f"scripted server: {e!r}"}})
            self.send(400, "application/json", message.encode())
            sys.stderr.write(f"record.py: no scripted answer: {e!r}\n")
            return
        prompt = "".join(m.get("content", "") for m in body.get("messages", []))
        usage = {"prompt_tokens": tokens(prompt), "completion_tokens": tokens(content),
                 "total_tokens": tokens(prompt) + tokens(content)}
        model = body.get("model", "example-scripted")
        if body.get("stream"):
            chunks = [content[i:i + 400] for i in range(0, len(content), 400)]
            events = [{"id": "chatcmpl-example", "object": "chat.completion.chunk", "model": model,
                       "choices": [{"index": 0, "delta": {"role": "assistant", "content": c}, "finish_reason": None}]}
                      for c in chunks]
            events.append({"id": "chatcmpl-example", "object": "chat.completion.chunk", "model": model,
                           "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            if body.get("stream_options", {}).get("include_usage"):
                events.append({"id": "chatcmpl-example", "object": "chat.completion.chunk", "model": model,
                               "choices": [], "usage": usage})
            payload = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
            self.send(200, "text/event-stream", payload.encode())
        else:
            reply = {"id": "chatcmpl-example", "object": "chat.completion", "model": model,
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                  "finish_reason": "stop"}],
                     "usage": usage}
            self.send(200, "application/json", json.dumps(reply).encode())


PROVENANCE_AFTER = "cache_key"  # where goldgate puts `provenance` in a record


def in_sample_order(path):
    """Write the run file's records in sample order: goldgate writes them as they finish.
    The file's first record carries the run's provenance, so it moves to the new first one."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    provenance = records[0].pop("provenance")
    records.sort(key=lambda r: (r["sample_id"], r["repeat"]))
    first = records[0]
    records[0] = {}
    for key, value in first.items():
        records[0][key] = value
        if key == PROVENANCE_AFTER:
            records[0]["provenance"] = provenance
    lines = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def goldgate_binary():
    if len(sys.argv) > 1:
        return sys.argv[1]
    root = PROJECT.parent.parent
    for build in ("release", "debug"):
        path = root / "target" / build / "goldgate"
        if path.exists():
            return str(path)
    sys.exit("record.py: no goldgate binary: pass its path, or run `cargo build --release`")


def main():
    goldgate = goldgate_binary()
    server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "GOLDGATE_"))}
    status = 0
    try:
        for config, output in (("srs-agents.toml", "answers/srs-agents.jsonl"),
                               ("srs-agents/candidate.toml", "answers/srs-agents-candidate.jsonl")):
            command = [goldgate, "run", "--config", config, "--suite", "suite/e2e",
                       "--output", output, "--no-cache", "--jobs", "1"]
            print("+", " ".join(command[1:]), flush=True)
            status = subprocess.run(command, cwd=PROJECT, env=env).returncode
            if status != 0:
                break
            in_sample_order(PROJECT / output)
    finally:
        server.shutdown()
    sys.exit(status)


if __name__ == "__main__":
    main()
