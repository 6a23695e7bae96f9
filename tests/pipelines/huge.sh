#!/bin/sh
# Prints 50 MB.
cat > /dev/null
head -c 52428800 /dev/zero | tr '\0' 'a'
