#!/bin/sh
# Answers with the sample id and appends one line per call to $COUNT_FILE.
request=$(cat)
echo call >> "${COUNT_FILE:-/dev/null}"
id=$(printf '%s' "$request" | sed 's/.*"id":"\([^"]*\)".*/\1/')
printf '{"marks": [], "answered": "%s"}\n' "$id"
