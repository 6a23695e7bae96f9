#!/bin/sh
cat > /dev/null
echo "Sure! Here are the requirements: the user can log in."
