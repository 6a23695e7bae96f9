#!/bin/sh
# Never answers: starts a grandchild that would outlive it, then sleeps.
cat > /dev/null
sleep 300 &
echo "$!" > "${HANG_PIDFILE:-/dev/null}"
sleep 300
