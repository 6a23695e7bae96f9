#!/bin/sh
# ext-002 and ext-004 fail as a pipeline without its API key would (exit 1, the cause on
# stderr), ext-005 hangs past the timeout, the others answer the gold requirement.
request=$(cat)
case "$request" in
  *'"id":"ext-002"'* | *'"id":"ext-004"'*)
    echo "calling the model..." >&2
    echo "Error: the model API answered 401 Unauthorized" >&2
    exit 1 ;;
  *'"id":"ext-005"'*) sleep 30 ;;
esac
echo '{"requirements": [{"id": "REQ-001", "title": "Track orders", "type": "functional", "actor": "customer", "action": "track their orders online", "acceptance_criteria": ["Order page shows the status", "Status refreshes every 5 minutes"], "priority": "must", "source_messages": [0]}]}'
