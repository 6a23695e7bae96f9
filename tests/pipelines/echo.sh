#!/bin/sh
# Answers with the request it was sent, so tests can see exactly what a pipeline receives.
cat
