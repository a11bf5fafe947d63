#!/bin/sh
# Compiles the Java peer into peers/java/build/ with one plain javac call (no Maven, no
# dependencies). Run: java -Xss16m -cp peers/java/build ForkJoinBench PROGRAM PARAM... [options]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$here/build"
javac --release 17 -Xlint:all -d "$here/build" "$here"/src/*.java
