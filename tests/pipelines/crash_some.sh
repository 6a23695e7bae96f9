#!/bin/sh
# Crashes (exit 3, with a message on stderr) on samples whose id ends in an even digit.
request=$(cat)
case "$request" in
  *'"id":"s-'*[02468]'"'*) echo "Traceback: boom on this sample" >&2; exit 3 ;;
esac
echo '{"marks": []}'
