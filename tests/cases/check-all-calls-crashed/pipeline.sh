#!/bin/sh
# Every call crashes as a pipeline without its API key would (exit 1, the cause on stderr).
cat > /dev/null
echo "calling the model..." >&2
echo "Error: the model API answered 401 Unauthorized" >&2
exit 1
