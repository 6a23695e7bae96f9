#!/bin/sh
# Answers after a short pause, echoing the sample id (for interrupt/resume tests).
request=$(cat)
sleep "${SLOW_SECONDS:-0.2}"
id=$(printf '%s' "$request" | sed 's/.*"id":"\([^"]*\)".*/\1/')
printf '{"marks": [], "answered": "%s"}\n' "$id"
