#!/bin/sh
# Exits 0 having printed nothing.
cat > /dev/null
exit 0
